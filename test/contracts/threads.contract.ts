import { describe, expect, it } from "vitest";
import { MAX_PARTICIPANTS_PER_MAIL } from "../../shared/ports/threads.ts";
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

    it("records who took part in a thread, per thread and per agent; a participants-only item is no thread", async () => {
      const threads = await make();
      const [a, b] = [`${fresh("tp")}@x.example`, `${fresh("tq")}@x.example`];
      expect(await threads.isParticipant(a, "T", "carol@example.com")).toBe(false);
      await threads.addParticipants(a, "T", [
        "carol@example.com",
        "dave@example.com",
        "carol@example.com",
        "",
      ]);
      await threads.addParticipants(a, "T", ["erin@example.com"]);
      await threads.addParticipants(a, "T", []);
      for (const k of ["carol@example.com", "dave@example.com", "erin@example.com"])
        expect(await threads.isParticipant(a, "T", k)).toBe(true);
      expect(await threads.isParticipant(a, "T", "mallory@example.com")).toBe(false);
      expect(await threads.isParticipant(a, "T", "")).toBe(false);
      expect(await threads.isParticipant(a, "U", "carol@example.com")).toBe(false);
      expect(await threads.isParticipant(b, "T", "carol@example.com")).toBe(false);
      // Participants alone do not make a thread anyone lists or opens; the summary never carries them.
      expect(await threads.get(a, "T")).toBeNull();
      await threads.touch(a, "T", { lastMessageAt: "2026-01-02T00:00:00Z", subject: "S" });
      expect(await threads.get(a, "T")).toEqual({
        agent: a,
        threadId: "T",
        subject: "S",
        createdAt: "2026-01-02T00:00:00Z",
        lastMessageAt: "2026-01-02T00:00:00Z",
        messageCount: 1,
      });
      expect(threads.newThreadId()).not.toBe(threads.newThreadId());
    });

    it("adds at most MAX_PARTICIPANTS_PER_MAIL participants per call", async () => {
      const threads = await make();
      const a = `${fresh("tm")}@x.example`;
      const keys = Array.from({ length: MAX_PARTICIPANTS_PER_MAIL + 5 }, (_, i) => `p${i}@example.com`);
      await threads.addParticipants(a, "T", keys);
      expect(await threads.isParticipant(a, "T", keys[MAX_PARTICIPANTS_PER_MAIL - 1] as string)).toBe(true);
      expect(await threads.isParticipant(a, "T", keys[MAX_PARTICIPANTS_PER_MAIL] as string)).toBe(false);
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
