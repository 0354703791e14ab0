import { describe, expect, it } from "vitest";
import type { RunEvent, RunEventReader } from "../../shared/ports/index.ts";
import type { AppendResult } from "../../shared/store/run-event-repo.ts";
import { fresh } from "./ids.ts";

export interface RunEventLogSubject {
  /** The port (RunEventLog), with what the repository also answers: the event's number, and the list. */
  readonly log: RunEventReader & {
    append(runId: string, event: RunEvent): Promise<AppendResult>;
  };
  /** A second writer on the same table whose clock reads the same instant (another container). */
  readonly second?: RunEventLogSubject["log"];
  /** The run table's part: a trace belongs to a run. */
  createRun(runId: string): Promise<void>;
}

const event = (i: number, data: Record<string, unknown> = { i }): RunEvent => ({
  type: "tool-call",
  round: 1,
  at: "2026-11-29T12:00:00.000Z",
  data,
});

/** The trace (shared/agent/ports.ts RunEventLog, and the list the console and CLI read). */
export function runEventLogContract(make: () => RunEventLogSubject | Promise<RunEventLogSubject>): void {
  describe("RunEventLog", () => {
    it("numbers a run's events in append order, each number once, even when appends race", async () => {
      const { log, createRun } = await make();
      const runId = fresh("run");
      await createRun(runId);
      const first = await log.append(runId, event(-1));
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => log.append(runId, event(i))));
      const seqs = results.map((r) => (r.ok ? r.seq : -1));
      expect(new Set(seqs).size).toBe(12);
      for (const s of seqs) expect(s).toBeGreaterThan(first.ok ? first.seq : Number.POSITIVE_INFINITY);
      const listed = await log.list(runId);
      expect(listed.map((e) => e.seq)).toEqual([
        first.ok ? first.seq : -1,
        ...[...seqs].sort((x, y) => x - y),
      ]);
      expect(listed[0]).toEqual({ ...event(-1), runId, seq: listed[0]?.seq });
    });

    it("two writers numbering in the same instant lose no event (a taken number moves on)", async () => {
      const { log, second, createRun } = await make();
      const runId = fresh("run");
      await createRun(runId);
      const other = second ?? log;
      for (let i = 0; i < 5; i++) {
        await log.append(runId, event(i));
        await other.append(runId, event(100 + i));
      }
      const listed = await log.list(runId);
      expect(listed.map((e) => e.data.i).sort((a, b) => Number(a) - Number(b))).toEqual([
        0, 1, 2, 3, 4, 100, 101, 102, 103, 104,
      ]);
    });

    it("keeps each run's trace apart; an unknown run's is empty", async () => {
      const { log, createRun } = await make();
      const [a, b] = [fresh("run"), fresh("run")];
      await createRun(a);
      await createRun(b);
      await log.append(a, event(1));
      expect(await log.append(b, event(2))).toMatchObject({ ok: true });
      expect((await log.list(a)).map((e) => e.data)).toEqual([{ i: 1 }]);
      expect(await log.list(fresh("run"))).toEqual([]);
    });

    it("refuses an event over 32 KB", async () => {
      const { log, createRun } = await make();
      const runId = fresh("run");
      await createRun(runId);
      expect(await log.append(runId, event(1, { big: "x".repeat(40_000) }))).toEqual({
        ok: false,
        reason: "too-large",
      });
      expect(await log.list(runId)).toEqual([]);
    });
  });
}
