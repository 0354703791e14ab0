import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import type { KeyedLogger } from "../logger.ts";
import { parseOutboundPayload, sqsBatchHandler } from "../payloads/index.ts";
import type { DeliveryEventsDeps, OutboundDeps } from "./ports.ts";
import { processOutboundRequest } from "./process.ts";
import { recordSendOutcome } from "./send-outcomes.ts";

/** What the outbound module's two SQS handlers take beside their deps. */
export interface OutboundSqsOptions {
  readonly logger: KeyedLogger;
}

/**
 * SQS records → processOutboundRequest → batchItemFailures. Shared by the Lambda handler and the local stack's
 * poller. A record fails (and is redelivered, then dead-lettered) when it is malformed, when the core asks for a
 * retry (throttled, or another worker holds the send), or when the core throws.
 */
export function outboundSqsHandler(
  deps: OutboundDeps,
  options: OutboundSqsOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const { logger } = options;
  return sqsBatchHandler(
    async (record, scope) => {
      deps.beginReceive?.();
      const parsed = parseOutboundPayload(record.body);
      if (!parsed.ok) {
        // A malformed request is a bug upstream: fail it so the DLQ keeps it for an operator.
        logger.error("unusable outbound payload", {
          sqsMessageId: record.messageId,
          reason: parsed.reason,
          detail: parsed.detail,
        });
        return "reject";
      }
      scope.appendKeys({ correlationId: parsed.message.correlationId, requestId: parsed.message.requestId });
      const outcome = await processOutboundRequest(parsed.message, deps);
      logger.info("outbound outcome", { ...outcome });
      return outcome.status === "retry" ? "retry" : "done";
    },
    { logger, name: "outbound" },
  );
}

/**
 * SQS records of the delivery-events queue (SES's events through EventBridge) → the agent's record of
 * each. An unreadable record fails, so the DLQ keeps it for an operator.
 */
export function deliveryEventsSqsHandler(
  deps: DeliveryEventsDeps,
  options: OutboundSqsOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const { logger } = options;
  return sqsBatchHandler(
    async (record) => ((await recordSendOutcome(record.body, deps)) === "refused" ? "reject" : "done"),
    { logger, name: "delivery-events" },
  );
}
