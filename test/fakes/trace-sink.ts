import type { TraceSink } from "../../shared/agent/ports.ts";
import type { RunEvent } from "../../shared/ports/index.ts";

export type SunkEvent = Omit<RunEvent, "at"> & { readonly runId: string };

/**
 * The step loop's trace port (ports.ts TraceSink) as a recorder, for rules tested without the store below it.
 * With the store, use the real sink (createTraceSink) over memoryRunEventLog.
 */
export function recordingSink(): TraceSink & { readonly events: SunkEvent[] } {
  const events: SunkEvent[] = [];
  return {
    events,
    async append(runId, event) {
      events.push({ runId, ...event });
    },
  };
}
