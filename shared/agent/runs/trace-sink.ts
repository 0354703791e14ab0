import type { Logger } from "../../logger.ts";
import type { RunTable } from "../../ports/index.ts";
import type { RunEventLog, ThreadActivityLog, TraceSink } from "../ports.ts";

export interface RunEventSinkDeps {
  readonly log: RunEventLog;
  readonly runs: Pick<RunTable, "get">;
  readonly activity: Pick<ThreadActivityLog, "record">;
  now(): Date;
  readonly logger: Logger;
}

/**
 * The run's trace. Tool outcomes are also kept per thread, so a later run in the thread sees what the agent
 * already did; a trace event that cannot be stored does not vanish silently.
 */
export function createTraceSink(deps: RunEventSinkDeps): TraceSink {
  return {
    async append(runId, event) {
      if (event.type === "tool-result") await recordToolActivity(runId, event.data, deps);
      const r = await deps.log.append(runId, { ...event, at: deps.now().toISOString() });
      // A trace event must not vanish silently: say which one, and keep a small marker in its place.
      if (!r.ok) {
        deps.logger.error("run event not recorded", { runId, type: event.type, reason: r.reason });
        if (r.reason === "too-large") {
          await deps.log.append(runId, {
            type: event.type,
            round: event.round,
            at: deps.now().toISOString(),
            data: { truncated: true },
          });
        }
      }
    },
  };
}

async function recordToolActivity(
  runId: string,
  data: Record<string, unknown>,
  deps: RunEventSinkDeps,
): Promise<void> {
  // In the wiring this is the step's own read of the run (shared/agent/wiring.ts), not another call.
  const run = await deps.runs.get(runId);
  if (!run?.threadId) return;
  await deps.activity.record(run.agent, run.threadId, String(data.callId), {
    at: deps.now().toISOString(),
    runId,
    tool: String(data.name),
    ok: data.ok === true,
    ...(typeof data.reason === "string" ? { reason: data.reason } : {}),
  });
}
