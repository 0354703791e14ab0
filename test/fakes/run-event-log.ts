import type { RunEventLog, TraceEvent } from "../../shared/agent/store-ports.ts";
import {
  type AppendResult,
  MAX_EVENT_BYTES,
  type StoredRunEvent,
} from "../../shared/store/run-event-repo.ts";
import { stored } from "./stored.ts";

export interface MemoryRunEventLog {
  append(runId: string, event: TraceEvent): Promise<AppendResult>;
  /** In order of `seq` (RunEventRepo.list). */
  list(runId: string): Promise<StoredRunEvent[]>;
  /** Every stored event of every run, in append order. */
  readonly events: StoredRunEvent[];
}

/**
 * The trace (RunEventRepo) over an array: an event over 32 KB is refused, an event of a run the run table does not
 * hold is refused, and each run numbers its events 1, 2, 3... Run against the real one by
 * test/contracts/run-event-log.contract.ts.
 */
export function memoryRunEventLog(runs: {
  readonly rows: ReadonlyMap<string, unknown>;
}): MemoryRunEventLog & RunEventLog {
  const events: StoredRunEvent[] = [];
  const seqs = new Map<string, number>();
  return {
    events,
    async append(runId, event) {
      if (Buffer.byteLength(JSON.stringify(event), "utf8") > MAX_EVENT_BYTES)
        return { ok: false, reason: "too-large" };
      if (!runs.rows.has(runId)) return { ok: false, reason: "missing-run" };
      const seq = (seqs.get(runId) ?? 0) + 1;
      seqs.set(runId, seq);
      events.push(stored({ ...event, runId, seq }));
      return { ok: true, seq };
    },
    async list(runId) {
      return stored(events.filter((e) => e.runId === runId).sort((a, b) => a.seq - b.seq));
    },
  };
}
