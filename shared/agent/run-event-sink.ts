import type { Logger } from "../logger.ts";
import type { RunEventSink } from "./ports.ts";
import type { RunEventLog, RunTable, ThreadActivityLog } from "./store-ports.ts";

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
export function createRunEventSink(deps: RunEventSinkDeps): RunEventSink {
  const threadOf = runThreads(deps.runs);
  return {
    async append(runId, event) {
      if (event.type === "tool-result") await recordToolActivity(runId, event.data, deps, threadOf);
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

/** Runs kept (agent and thread) before the oldest is forgotten: a container serves a few runs at a time. */
const MAX_KEPT_RUNS = 256;

/**
 * A run's agent and thread, read once per container (issue 13: a run read per tool result). Neither ever changes
 * after the run is created, so keeping them cannot go stale.
 */
function runThreads(
  runs: Pick<RunTable, "get">,
): (runId: string) => Promise<{ agent: string; threadId: string | null } | null> {
  const kept = new Map<string, { agent: string; threadId: string | null }>();
  return async (runId) => {
    const hit = kept.get(runId);
    if (hit) return hit;
    const run = await runs.get(runId);
    if (!run) return null;
    const entry = { agent: run.agent, threadId: run.threadId };
    if (kept.size >= MAX_KEPT_RUNS) kept.delete(kept.keys().next().value as string);
    kept.set(runId, entry);
    return entry;
  };
}

async function recordToolActivity(
  runId: string,
  data: Record<string, unknown>,
  deps: RunEventSinkDeps,
  threadOf: ReturnType<typeof runThreads>,
): Promise<void> {
  const run = await threadOf(runId);
  if (!run?.threadId) return;
  await deps.activity.record(run.agent, run.threadId, String(data.callId), {
    at: deps.now().toISOString(),
    runId,
    tool: String(data.name),
    ok: data.ok === true,
    ...(typeof data.reason === "string" ? { reason: data.reason } : {}),
  });
}
