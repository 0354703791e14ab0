import type { RunEventLog } from "../../shared/agent/ports.ts";
import type { RunEvent, RunEventReader, StoredRunEvent } from "../../shared/ports/index.ts";
import { type AppendResult, MAX_EVENT_BYTES } from "../../shared/store/run-event-repo.ts";
import { stored } from "./stored.ts";

export interface MemoryRunEventLog extends RunEventReader {
  append(runId: string, event: RunEvent): Promise<AppendResult>;
  /** Every stored event of every run, in append order. */
  readonly events: StoredRunEvent[];
}

/**
 * The trace (RunEventRepo) over an array: an event over 32 KB is refused, and each event gets a number larger than
 * every earlier one of its run (the repository's is the append time; here a counter). Run against the real one by
 * test/contracts/run-event-log.contract.ts.
 */
export function memoryRunEventLog(): MemoryRunEventLog & RunEventLog {
  const events: StoredRunEvent[] = [];
  let last = 0;
  return {
    events,
    async append(runId, event) {
      if (Buffer.byteLength(JSON.stringify(event), "utf8") > MAX_EVENT_BYTES)
        return { ok: false, reason: "too-large" };
      const seq = ++last;
      events.push(stored({ ...event, runId, seq }));
      return { ok: true, seq };
    },
    async list(runId) {
      return stored(events.filter((e) => e.runId === runId).sort((a, b) => a.seq - b.seq));
    },
  };
}
