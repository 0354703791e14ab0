import type { RunEventSink } from "../../shared/agent/ports.ts";
import type { RunEvent } from "../../shared/ports/index.ts";

export type SunkEvent = Omit<RunEvent, "at"> & { readonly runId: string };

/**
 * The step loop's trace port (ports.ts RunEventSink) as a recorder, for rules tested without the store below it.
 * With the store, use the real sink (createRunEventSink) over memoryRunEventLog.
 */
export function recordingSink(): RunEventSink & { readonly events: SunkEvent[] } {
  const events: SunkEvent[] = [];
  return {
    events,
    async append(runId, event) {
      events.push({ runId, ...event });
    },
  };
}
