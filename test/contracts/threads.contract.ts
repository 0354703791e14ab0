import { describe, expect, it } from "vitest";
import type { ThreadPort } from "../fakes/threads.ts";
import { fresh } from "./ids.ts";

/** Threads per agent (ThreadRepo): joined only through a Message-ID the same agent has seen (never a subject). */
export function threadsContract(make: () => ThreadPort | Promise<ThreadPort>): void {
  describe("ThreadRepo", () => {
    it("joins a thread only through a Message-ID known to the same agent", async () => {
      const threads = await make();
      const [a, b] = [`${fresh("ta")}@x.example`, `${fresh("tb")}@x.example`];
      const first = await threads.resolveThread(a, {
        headerMessageId: "<m1@x>",
        inReplyTo: null,
        references: [],
        subject: "Hi",
      });
      expect(first.isNew).toBe(true);
      expect(await threads.recordMessageId(a, "<m1@x>", first.threadId)).toEqual({ ok: true });
      expect(await threads.recordMessageId(a, " m1@x ", "other")).toEqual({
        ok: false,
        reason: "duplicate",
        threadId: first.threadId,
      });
      const reply = {
        headerMessageId: "<m2@x>",
        inReplyTo: "<m1@x>",
        references: ["<m1@x>"],
        subject: "Re: Hi",
      };
      expect(await threads.resolveThread(a, reply)).toEqual({ threadId: first.threadId, isNew: false });
      // The same headers sent to another agent do not reach agent a's thread.
      const other = await threads.resolveThread(b, reply);
      expect(other.isNew).toBe(true);
      expect(other.threadId).not.toBe(first.threadId);
      // References alone (no In-Reply-To) still thread; a same subject alone does not.
      const viaRefs = {
        headerMessageId: "<m3@x>",
        inReplyTo: null,
        references: ["<zz@x>", "<m1@x>"],
        subject: "x",
      };
      expect((await threads.resolveThread(a, viaRefs)).threadId).toBe(first.threadId);
      const sameSubject = { headerMessageId: "<m4@x>", inReplyTo: null, references: [], subject: "Hi" };
      expect((await threads.resolveThread(a, sameSubject)).isNew).toBe(true);
      await expect(threads.recordMessageId(a, "<>", "t")).rejects.toThrow(/empty Message-ID/);
    });

    it("the newest known reference wins when references name two threads", async () => {
      const threads = await make();
      const a = `${fresh("tc")}@x.example`;
      await threads.recordMessageId(a, "old@x", "T-old");
      await threads.recordMessageId(a, "new@x", "T-new");
      const h = {
        headerMessageId: "<m9@x>",
        inReplyTo: null,
        references: ["<old@x>", "<new@x>"],
        subject: "",
      };
      expect(await threads.resolveThread(a, h)).toEqual({ threadId: "T-new", isNew: false });
    });

    it("keeps a thread's summary: first subject, latest time, count", async () => {
      const threads = await make();
      const a = `${fresh("td")}@x.example`;
      expect(await threads.get(a, "T")).toBeNull();
      await threads.touch(a, "T", { lastMessageAt: "2026-01-02T00:00:00Z", subject: "First" });
      await threads.touch(a, "T", { lastMessageAt: "2026-01-01T00:00:00Z", subject: "Older" });
      expect(await threads.get(a, "T")).toEqual({
        agent: a,
        threadId: "T",
        subject: "First",
        createdAt: "2026-01-02T00:00:00Z",
        lastMessageAt: "2026-01-02T00:00:00Z",
        messageCount: 2,
      });
    });
  });
}
