import { describe, expect, it } from "vitest";
import type { MessageRecord } from "../../shared/ports/messages.ts";
import { newMessageId } from "../../shared/store/message-repo.ts";
import type { MessagePort } from "../fakes/messages.ts";
import { fresh } from "./ids.ts";

function message(agent: string, over: Partial<MessageRecord> = {}): MessageRecord {
  return {
    agent,
    id: newMessageId(),
    direction: "in",
    threadId: "t1",
    headerMessageId: `${fresh("m")}@x.example`,
    inReplyTo: null,
    references: [],
    from: "joe@football.example.com",
    to: [agent],
    cc: [],
    subject: "Hello",
    at: "2026-11-29T12:00:00.000Z",
    bodyKey: "mail/a/1/body.txt",
    hasHtmlOnly: false,
    attachments: [],
    hop: 0,
    ...over,
  };
}

/** An agent's mailbox records (MessageRepo): verify and outbound write them, the step loop and the tools read. */
export function messagesContract(make: () => MessagePort | Promise<MessagePort>): void {
  describe("MessageRepo", () => {
    it("keeps the first put of a message; extra attributes (verify's fromName) come back", async () => {
      const messages = await make();
      const m = { ...message(`${fresh("a")}@x.example`), fromName: "Joe" };
      expect(await messages.put(m)).toEqual({ ok: true });
      expect(await messages.put({ ...m, subject: "changed" })).toEqual({ ok: false, reason: "duplicate" });
      expect(await messages.get(m.agent, m.id)).toEqual(m);
      expect(await messages.get("other@x.example", m.id)).toBeNull();
    });

    it("lists an agent's mailbox newest first and a thread oldest first, within one agent only", async () => {
      const messages = await make();
      const agent = `${fresh("mbox")}@x.example`;
      const [id0, id1, id2] = ["2026-01-01", "2026-01-02", "2026-01-03"].map((d) =>
        newMessageId(new Date(`${d}T00:00:00Z`)),
      ) as [string, string, string];
      await messages.put(message(agent, { id: id1, threadId: "tA" }));
      await messages.put(message(agent, { id: id0, threadId: "tA" }));
      await messages.put(message(agent, { id: id2, threadId: "tB" }));
      await messages.put(message(`${fresh("other")}@x.example`, { id: id0, threadId: "tA" }));
      expect((await messages.listByAgent(agent, { limit: 2 })).map((m) => m.id)).toEqual([id2, id1]);
      expect((await messages.listByAgent(agent)).map((m) => m.id)).toEqual([id2, id1, id0]);
      expect((await messages.listByThread(agent, "tA")).map((m) => m.id)).toEqual([id0, id1]);
      expect((await messages.listByThread(agent, "tA", { newest: 1 })).map((m) => m.id)).toEqual([id1]);
      expect((await messages.listByThread(agent, "tA", { newest: 5 })).map((m) => m.id)).toEqual([id0, id1]);
      expect(await messages.listByThread(agent, "none")).toEqual([]);
    });
  });
}
