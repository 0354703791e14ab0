import type { Logger } from "../logger.ts";
import type { ConfirmPayload, RecordOutcome, RecordScope, StepPayload } from "../payloads/index.ts";
import { parseAgentStepPayload } from "../payloads/index.ts";
import { runStep } from "./loop/step.ts";
import type { ApplyOutcome } from "./plans/apply-plan.ts";
import type { StepDeps } from "./ports.ts";
import { failExhaustedRun, isLastDelivery } from "./runs/retries-exhausted.ts";

/** The step loop's ports, plus the two other things an agent-step message can ask for. */
export type StepHandlerDeps = StepDeps & {
  /** A schedule tick: start the responsibilities due. */
  startDue(tick: Date): Promise<{ started: string[]; invalid: string[] }>;
  /** An approver's reply about a plan (G14). */
  applyConfirm(msg: ConfirmPayload): Promise<ApplyOutcome>;
};

/** One delivery of a queue message. */
export interface Delivery {
  readonly body: string;
  /** The queue's id of the message, for the logs. */
  readonly id: string;
  /** How many times it has been received, this time included. */
  readonly receiveCount: number;
}

export interface DeliveryHandling {
  /** The queue's redrive maxReceiveCount. */
  readonly maxReceives: number;
  readonly logger: Logger;
  readonly scope: RecordScope;
}

/**
 * One agent-step message: a tick, an approver's reply, or one model round. `retry` sends it back to the queue
 * (busy, or a retryable model failure); an exception does too (the batch helper logs it).
 */
export async function handleAgentStepPayload(
  delivery: Delivery,
  deps: StepHandlerDeps,
  how: DeliveryHandling,
): Promise<RecordOutcome> {
  const { logger } = how;
  deps.beginReceive?.();
  const parsed = parseAgentStepPayload(delivery.body);
  if (!parsed.ok) {
    // A body none of our producers writes: rejected, so the DLQ keeps it for the operator (docs/reasons.md).
    logger.error("unusable agent-step payload", {
      sqsMessageId: delivery.id,
      reason: parsed.reason,
      detail: parsed.detail,
    });
    return "reject";
  }
  const { message } = parsed;
  if ("tick" in message) {
    // Debug, not info: a tick comes every minute, and locally its line would scroll the console's sign-in link
    // away; a run it starts has its own trace.
    logger.debug("schedule tick", { tick: message.tick, ...(await deps.startDue(new Date(message.tick))) });
    return "done";
  }
  if ("confirm" in message) {
    const c = message.confirm;
    logger.info("plan confirmation", { code: c.code, by: c.sender, ...(await deps.applyConfirm(c)) });
    return "done";
  }
  how.scope.appendKeys({ runId: message.runId });
  return step(message, delivery, deps, how);
}

async function step(
  msg: StepPayload,
  delivery: Delivery,
  deps: StepHandlerDeps,
  how: DeliveryHandling,
): Promise<RecordOutcome> {
  let failed: boolean;
  try {
    const outcome = await runStep(msg, deps, {
      lastDelivery: isLastDelivery(delivery.receiveCount, how.maxReceives),
    });
    how.logger.info("agent step", { round: msg.round, ...outcome });
    // busy (another delivery holds the round) and retryable model failures: back to the queue.
    failed = outcome.status === "busy" || outcome.status === "retry";
  } catch (err) {
    // Logged here, not left to the batch helper: the last delivery's rule below must run after any failure.
    how.logger.error("agent step failed; SQS will redeliver", {
      error: String((err as Error)?.stack ?? err),
    });
    failed = true;
  }
  if (!failed) return "done";
  if (isLastDelivery(delivery.receiveCount, how.maxReceives)) await failExhaustedRun(msg, deps, how.logger);
  return "retry";
}
