import type { Logger } from "../../logger.ts";
import type { StepMessage } from "../../messages/index.ts";
import type { EventSink } from "../../ports/index.ts";
import type { RunEndReason, RunEventSink, RunFailures, RunStore } from "../ports.ts";
import { emitRunEnd } from "./run-end-event.ts";
import { failedRunOf } from "./run-failure.ts";

/** The reason a run ends with when its step never got through; operators search for it. */
export const RETRIES_EXHAUSTED = "step-retries-exhausted" satisfies RunEndReason;

/** This delivery was the queue's last (its redrive maxReceiveCount): failing it sends the message to the DLQ. */
export function isLastDelivery(receiveCount: number, maxReceives: number): boolean {
  return receiveCount >= maxReceives;
}

/**
 * The last delivery of a step failed too: SQS moves the message to the DLQ (kept as evidence, alarmed on); the run
 * must not stay `running` for ever, so it ends `failed` with a reason an operator can search for.
 */
export async function failExhaustedRun(
  msg: StepMessage,
  deps: {
    readonly runs: Pick<RunStore, "finish" | "get">;
    readonly events: RunEventSink;
    readonly runFailures: RunFailures;
    /** Signed events out: the failed run's `run.failed`. */
    readonly webhooks?: EventSink;
  },
  logger: Logger,
): Promise<void> {
  logger.error("agent step retries exhausted; run failed, message goes to the DLQ", { runId: msg.runId });
  // Read first: a run that already ended (the step finished it, then crashed) is not failed, or reported, twice.
  // The read may be what keeps failing; then the run is still failed and reported, without its sender.
  const run = await deps.runs.get(msg.runId).catch((err: unknown) => {
    logger.error("could not read the run", { runId: msg.runId, error: String(err) });
    return undefined;
  });
  if (run === null || (run !== undefined && run.state !== "running")) return;
  await deps.runs.finish(msg.runId, "failed", RETRIES_EXHAUSTED).catch((err: unknown) => {
    logger.error("could not mark the run failed", { runId: msg.runId, error: String(err) });
  });
  await deps.events.append(msg.runId, {
    type: "run-finished",
    round: msg.round,
    data: { state: "failed", reason: RETRIES_EXHAUSTED },
  });
  await deps.runFailures.failed(
    run
      ? failedRunOf(run)
      : { runId: msg.runId, agent: "unknown", correlationId: msg.runId, sender: null, messageId: null },
    RETRIES_EXHAUSTED,
  );
  await emitRunEnd(deps.webhooks, run ?? { runId: msg.runId, agent: "unknown", kind: "reply" }, {
    state: "failed",
    reason: RETRIES_EXHAUSTED,
    rounds: msg.round,
  });
}
