import type { Logger } from "../../logger.ts";
import type { StepPayload } from "../../payloads/index.ts";
import type { RunEndReason, StepDeps } from "../ports.ts";
import { type EndingRun, endingRun, endRun, type RunEndDeps } from "./end-run.ts";

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
  msg: StepPayload,
  deps: Omit<RunEndDeps, "logger"> & Pick<StepDeps, "loadRun">,
  logger: Logger,
): Promise<void> {
  logger.error("agent step retries exhausted; run failed, message goes to the DLQ", { runId: msg.runId });
  // Read first: a run that already ended (the step finished it, then crashed) is not failed, or reported, twice.
  // The read may be what keeps failing; then the run is still failed and reported, without its sender.
  const run = await deps.loadRun(msg.runId).catch((err: unknown) => {
    logger.error("could not read the run", { runId: msg.runId, error: String(err) });
    return undefined;
  });
  if (run === null || (run !== undefined && run.state !== "running")) return;
  const ending: EndingRun = run
    ? endingRun(run)
    : {
        runId: msg.runId,
        agent: "unknown",
        kind: "reply",
        correlationId: msg.runId,
        sender: null,
        messageId: null,
      };
  // The queue will not deliver this step again: a failed state write must not stop the reports.
  await endRun(
    { ...deps, logger },
    ending,
    { state: "failed", reason: RETRIES_EXHAUSTED, round: msg.round },
    { lastTry: true },
  );
}
