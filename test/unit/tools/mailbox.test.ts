import { describe, expect, it } from "vitest";
import { createMailbox } from "../../../shared/agent/mailbox/mailbox.ts";
import type { MessageRecord } from "../../../shared/ports/messages.ts";
import { WHOLE } from "../../fakes/builders.ts";
import { type MemoryMessages, memoryMessages } from "../../fakes/messages.ts";
import { addMessage, MemoryMailboxStore } from "./memory-mailbox-store.ts";

const A = "helpdesk@agents.example.net";
const B = "sales@agents.example.net";

/** A repository with a bug: it ignores the agent (and thread) it is asked for. The mailbox must not trust it. */
function leaky(m: MemoryMessages): MemoryMessages {
  const all = (): MessageRecord[] => [...m.records.values()];
  return {
    ...m,
    listByAgent: async (_agent, opts = {}) =>
      all()
        .reverse()
        .slice(0, opts.limit ?? Number.POSITIVE_INFINITY),
    listByThread: async () => all(),
  };
}
class LeakyStore extends MemoryMailboxStore {
  override readonly messages = leaky(memoryMessages());
}

describe("Mailbox scoping does not rely on the repository alone (G12)", () => {
  const store = new LeakyStore();
  addMessage(store, { agent: B, threadId: "t1", subject: "B's mail" }, "secret body", [
    { id: "att-b", filename: "b.txt", contentType: "text/plain", bytes: new TextEncoder().encode("secret") },
  ]);
  addMessage(store, { agent: A, threadId: "t2", subject: "A's other thread" }, "body", [
    { id: "att-a2", filename: "a.txt", contentType: "text/plain", bytes: new TextEncoder().encode("a") },
  ]);
  const mailbox = createMailbox({ ...store, agent: A, threadId: "t1", runId: "r", scope: WHOLE });

  it("drops another agent's records a buggy repository returns", async () => {
    expect(await mailbox.attachment("att-b")).toBeNull();
    expect(await mailbox.attachment("att-b", { anyThread: true })).toBeNull();
    expect((await mailbox.search({ text: "mail", limit: 10 })).map((m) => m.subject)).toEqual([]);
  });

  it("drops another thread's records a buggy repository returns", async () => {
    expect(await mailbox.attachment("att-a2")).toBeNull();
    expect(await mailbox.attachment("att-a2", { anyThread: true })).not.toBeNull();
  });

  it("never builds a storage key from an id that is not a created-file id", async () => {
    const files = new MemoryMailboxStore();
    await files.files.putIfAbsent(`file#${A}`, "../sales@agents.example.net/att-b", {
      threadId: "t1",
      runId: "r",
      filename: "x",
      contentType: "text/plain",
      size: 1,
      key: `files/${A}/../sales@agents.example.net/att-b`,
    });
    await files.blobs.put(`files/${A}/../sales@agents.example.net/att-b`, new Uint8Array([1]));
    const mb = createMailbox({ ...files, agent: A, threadId: "t1", runId: "r", scope: WHOLE });
    expect(await mb.attachment("../sales@agents.example.net/att-b")).toBeNull();
  });
});
