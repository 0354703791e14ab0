import { createHash } from "node:crypto";
import { noticeRequest, type OutboundRequest } from "../../payloads/index.ts";
import type { FailureSink, SenderNoticeOutcome } from "../../ports/index.ts";
import type { VerifiedSender } from "../../tool-framework/index.ts";
import type { FailedRun, LoadedRun, RunFailures } from "../ports.ts";

export function failedRunOf(run: LoadedRun): FailedRun {
  return {
    runId: run.runId,
    agent: run.agent,
    correlationId: run.correlationId,
    sender: run.sender,
    messageId: run.trigger.kind === "message" ? run.trigger.message.id : null,
  };
}

export interface RunFailureDeps {
  readonly failures: FailureSink;
  /**
   * The once-a-day mark: a conditional put keyed by (agent, sender routing key, UTC day); true only for the first
   * caller of the day, so however many runs fail, a sender hears about it once a day per agent.
   */
  firstNoticeToday(agent: string, senderKey: string, day: string): Promise<boolean>;
  /** Whether the accepted mail was automatic (an agent may opt in to it, G5): its sender is never written to. */
  isAutomatic(agent: string, messageId: string): Promise<boolean>;
  sendOutbound(request: OutboundRequest): Promise<void>;
  now(): Date;
}

/**
 * G19 for a run: the failure is reported (a metric and alarm, the trace, the run's row, the failure feed), and the
 * proven sender is told, in fixed engine-written words, that the mail could not be answered: at most once a day per
 * agent, never for a scheduled run, never for automatic mail (G6). A refused mail never has a run, so it is never
 * told this way either. The notice is decided before the report, so the report says what the sender was told.
 */
export function runFailures(deps: RunFailureDeps): RunFailures {
  return {
    async failed(run, reason, detail) {
      const senderNotice = await tellSender(run, deps);
      await deps.failures.report({
        class: "run-failed",
        reason,
        agent: run.agent,
        runId: run.runId,
        correlationId: run.correlationId,
        senderNotice,
        ...(detail === undefined ? {} : { detail }),
      });
    },
  };
}

async function tellSender(run: FailedRun, deps: RunFailureDeps): Promise<SenderNoticeOutcome> {
  if (!run.sender || !run.messageId) return "no-sender";
  if (await deps.isAutomatic(run.agent, run.messageId)) return "automatic-mail";
  const now = deps.now();
  const day = now.toISOString().slice(0, 10);
  if (!(await deps.firstNoticeToday(run.agent, run.sender.routingKey, day))) return "already-today";
  await deps.sendOutbound(runFailedNoticeRequest(run, run.sender, day));
  return "sent";
}

/**
 * The notice itself: from the agent, to the proven sender only, the reason code alone (the outbound renders the
 * text, G6). Its request id is the agent, the sender and the day, so even a mark lost to a crash cannot make the
 * outbound send two the same day.
 */
export function runFailedNoticeRequest(
  run: FailedRun,
  sender: Pick<VerifiedSender, "address" | "routingKey">,
  day: string,
): OutboundRequest {
  return noticeRequest({
    requestId: `runfail-${createHash("sha256").update(`${run.agent}|${sender.routingKey}|${day}`).digest("hex").slice(0, 32)}`,
    from: run.agent,
    to: sender.address,
    reason: "run-failed",
    // A fresh notice, like the budget notice: Auto-Submitted anyway, so it starts no loop (G5).
    inboundHop: 0,
    correlationId: run.correlationId,
    runId: run.runId,
  });
}
