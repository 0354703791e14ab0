import { describe, expect, it } from "vitest";
import type { TraceEvent } from "../../shared/agent/store-ports.ts";
import type { AppendResult, StoredRunEvent } from "../../shared/store/run-event-repo.ts";
import { fresh } from "./ids.ts";

export interface RunEventLogSubject {
  /** The port (RunEventLog), with what the repository also answers: the event's number, and the list. */
  readonly log: {
    append(runId: string, event: TraceEvent): Promise<AppendResult>;
    list(runId: string): Promise<StoredRunEvent[]>;
  };
  /** The run table's part: a trace belongs to a run that exists. */
  createRun(runId: string): Promise<void>;
}

const event = (i: number, data: Record<string, unknown> = { i }): TraceEvent => ({
  type: "tool-call",
  round: 1,
  at: "2026-11-29T12:00:00.000Z",
  data,
});

/** The trace (store-ports.ts RunEventLog, and the list the console and CLI read). */
export function runEventLogContract(make: () => RunEventLogSubject | Promise<RunEventLogSubject>): void {
  describe("RunEventLog", () => {
    it("numbers a run's events 1, 2, 3... even when appends race, and lists them in that order", async () => {
      const { log, createRun } = await make();
      const runId = fresh("run");
      await createRun(runId);
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => log.append(runId, event(i))));
      expect(results.map((r) => (r.ok ? r.seq : -1)).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
      const listed = await log.list(runId);
      expect(listed.map((e) => e.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(listed[0]).toEqual({ ...event(Number(listed[0]?.data.i)), runId, seq: 1 });
    });

    it("keeps each run's trace apart; an unknown run's is empty", async () => {
      const { log, createRun } = await make();
      const [a, b] = [fresh("run"), fresh("run")];
      await createRun(a);
      await createRun(b);
      await log.append(a, event(1));
      expect(await log.append(b, event(2))).toEqual({ ok: true, seq: 1 });
      expect((await log.list(a)).map((e) => e.data)).toEqual([{ i: 1 }]);
      expect(await log.list(fresh("run"))).toEqual([]);
    });

    it("refuses an event of a run that does not exist, and one over 32 KB", async () => {
      const { log, createRun } = await make();
      const runId = fresh("run");
      expect(await log.append(runId, event(1))).toEqual({ ok: false, reason: "missing-run" });
      await createRun(runId);
      expect(await log.append(runId, event(1, { big: "x".repeat(40_000) }))).toEqual({
        ok: false,
        reason: "too-large",
      });
      expect(await log.list(runId)).toEqual([]);
    });
  });
}
