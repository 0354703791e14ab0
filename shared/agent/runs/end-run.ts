import type { Logger } from "../../logger.ts";
import type { FinalRunState, WebhookSink } from "../../ports/index.ts";
import type { FailedRun, LoadedRun, RunEndReason, RunFailures, StepRuns, TraceSink } from "../ports.ts";
import { emitRunEnd } from "./run-end-event.ts";
import { failedRunOf } from "./run-failure.ts";

/** What ending a run writes to: the run table, the trace, the failure report (G19) and the signed events. */
export interface RunEndDeps {
  readonly runs: Pick<StepRuns, "finish">;
  readonly trace: TraceSink;
  readonly runFailures: RunFailures;
  /** Signed events out (docs/events.md); none where the stack has no events queue. */
  readonly webhooks: WebhookSink;
  readonly logger: Logger;
}

/** The run being ended, as far as whoever ends it knows it (a run whose record is unreadable: agent "unknown"). */
export type EndingRun = FailedRun & { readonly kind: "reply" | "scheduled" };

/** A loaded run as endRun takes it. */
export const endingRun = (run: LoadedRun): EndingRun => ({ ...failedRunOf(run), kind: run.kind });

export interface RunEnd {
  readonly state: FinalRunState;
  readonly reason: RunEndReason;
  /** The round the run reached (0 when it never started one): the trace event's round and the event's rounds. */
  readonly round: number;
  /** For a failed run: the provider's own message, kept with the failure (G19). */
  readonly detail?: string;
}

/**
 * The one way a run ends, whoever ends it (the step loop, a vanished agent or trigger, a step whose retries ran
 * out): its final state, the `run-finished` trace event, the G19 report of a failed run (a metric and alarm, the
 * failure feed, its sender told), and the signed `run.completed` / `run.failed` event, in that order.
 *
 * One rule for a state write that fails: it stops the end and is thrown, so the delivery is retried and ends the
 * run then; except on a delivery that will not come again (`lastTry`), where the failure is logged and the
 * reports still go out, so no run ends unseen. The state is written first because it is what stops every later
 * delivery of the run (runStep's first check); a delivery that finds the run already ended emits the signed event
 * again under the same key (the run id), so a crash between the write and the event loses nothing a receiver sees.
 */
export async function endRun(
  deps: RunEndDeps,
  run: EndingRun,
  end: RunEnd,
  opts: { readonly lastTry?: boolean } = {},
): Promise<void> {
  const { state, reason, round } = end;
  try {
    await deps.runs.finish(run.runId, state, reason);
  } catch (err) {
    if (opts.lastTry !== true) throw err;
    deps.logger.error("could not mark the run ended; reporting it anyway", {
      runId: run.runId,
      state,
      reason,
      error: String(err),
    });
  }
  await deps.trace.append(run.runId, { type: "run-finished", round, data: { state, reason } });
  if (state === "failed") await deps.runFailures.failed(run, reason, end.detail);
  await emitRunEnd(deps.webhooks, run, { state, reason, rounds: round });
}
