import { describe, expect, it } from "vitest";
import { type ContextSources, createContextBuilder } from "../../../shared/agent/context-builder.ts";
import type { MessageRecord } from "../../../shared/ports/messages.ts";
import { agent, replyRun } from "../../fakes/builders.ts";
import { addMessage, MemoryMailboxStore } from "../tools/memory-mailbox-store.ts";
import { AGENT } from "./dispatch-harness.ts";

// Round 1's conversation from a thread: what is shown (and what is not), inside the fence (G8), and what the
// quote check may take evidence from (G15). Same eyes has its own tests (same-eyes.test.ts).

const CAROL = "carol@customer.example";
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString();

function builder(store: MemoryMailboxStore, extra: Partial<ContextSources> = {}) {
  return createContextBuilder({
    getMessage: (a, id) => store.messages.get(a, id),
    listThread: (a, t, opts) => store.messages.listByThread(a, t, opts),
    getText: (key) => store.blobs.getText(key),
    responsibility: () => null,
    ...extra,
  });
}

function answering(current: MessageRecord) {
  return replyRun({
    sender: { address: CAROL, routingKey: CAROL, displayName: "Carol" },
    trigger: {
      kind: "message",
      message: { id: current.id, threadId: "t", subject: "Hello", headerMessageId: current.headerMessageId },
    },
  });
}

/** The decoded display name verify stores beside a message (an extra attribute the table keeps). */
function named(store: MemoryMailboxStore, m: MessageRecord, fromName: string): MessageRecord {
  store.messages.records.set(`${m.agent}|${m.id}`, { ...m, fromName } as MessageRecord);
  return m;
}

const prompt = (t: Awaited<ReturnType<ReturnType<typeof builder>["initial"]>>) => JSON.stringify(t.messages);
const occurrences = (text: string, word: string) => text.split(word).length - 1;

describe("createContextBuilder: thread history", () => {
  it("shows neither the message being answered nor anything newer among the earlier messages", async () => {
    const store = new MemoryMailboxStore();
    addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(1) }, "EARLIER-WORDS");
    const current = addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(2) }, "ASKING-NOW");
    addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(3) }, "LATER-WORDS");
    const text = prompt(await builder(store).initial(answering(current), agent()));
    expect(occurrences(text, "EARLIER-WORDS")).toBe(1);
    expect(occurrences(text, "ASKING-NOW")).toBe(1);
    expect(text).not.toContain("LATER-WORDS");
  });

  it("shows the agent's earlier reply with whom it went to, and never takes evidence from it", async () => {
    const store = new MemoryMailboxStore();
    addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(1) }, "CAROL-WROTE");
    addMessage(
      store,
      { agent: AGENT, threadId: "t", direction: "out", from: AGENT, to: [CAROL], at: at(2) },
      "AGENT-WROTE",
    );
    const current = addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(3) }, "ASKING-NOW");
    const built = await builder(store).initial(answering(current), agent());
    expect(prompt(built)).toContain(`| To: ${CAROL}`);
    expect(built.untrustedText).toContain("CAROL-WROTE");
    expect(built.untrustedText).toContain("ASKING-NOW");
    expect(built.untrustedText).not.toContain("AGENT-WROTE");
  });

  it("says when older messages are left out", async () => {
    const store = new MemoryMailboxStore();
    for (let i = 0; i < 12; i++) addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(i) });
    const current = addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(20) });
    expect(prompt(await builder(store).initial(answering(current), agent()))).toContain(
      "(2 earlier messages in this thread are not shown)",
    );
    for (let i = 0; i < 30; i++) addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(i) });
    const last = addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(40) });
    expect(prompt(await builder(store).initial(answering(last), agent()))).toContain(
      "(earlier messages in this thread are not shown)",
    );
  });

  it("lists this agent's earlier actions from other runs only", async () => {
    const store = new MemoryMailboxStore();
    const current = addMessage(store, { agent: AGENT, threadId: "t", from: CAROL, at: at(1) });
    const activity = async () => [
      { at: at(0), runId: "run-0", tool: "lookup_order", ok: true },
      { at: at(1), runId: "run-1", tool: "issue_refund", ok: false, reason: "tool-error" },
    ];
    const text = prompt(await builder(store, { activity }).initial(answering(current), agent()));
    expect(text).toContain("lookup_order: ok");
    expect(text).not.toContain("issue_refund");
  });
});

describe("createContextBuilder: the message answered", () => {
  it("a display name that reads as an address is not quotable evidence (G15); a plain one is", async () => {
    const store = new MemoryMailboxStore();
    const withheld = named(
      store,
      addMessage(store, { agent: AGENT, threadId: "t", from: CAROL }),
      "ceo@bank.example",
    );
    const built = await builder(store).initial(answering(withheld), agent());
    expect(built.untrustedText).not.toContain("ceo@bank.example");
    const plain = named(
      store,
      addMessage(store, { agent: AGENT, threadId: "t", from: CAROL }),
      "Carol Quinn",
    );
    expect((await builder(store).initial(answering(plain), agent())).untrustedText).toContain("Carol Quinn");
  });
});
