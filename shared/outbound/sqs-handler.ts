import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import type { Logger } from "../tools/context.ts";
import type { OutboundDeps } from "./ports.ts";
import { processOutboundRequest } from "./process.ts";
import { parseOutboundMessage } from "./request.ts";

/** A logger that can carry per-record keys (Powertools' does; see shared/runtime/logger.ts). */
export interface KeyedLogger extends Logger {
  appendKeys(keys: Record<string, string>): void;
  removeKeys(keys: string[]): void;
}

/**
 * SQS records → processOutboundRequest → batchItemFailures. Shared by the Lambda handler and the local stack's
 * poller. A record fails (and is redelivered, then dead-lettered) when it is malformed, when the core asks for a
 * retry (throttled, or another worker holds the send), or when the core throws.
 */
export function outboundSqsHandler(
  deps: OutboundDeps,
  logger: KeyedLogger,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const batchItemFailures: SQSBatchResponse["batchItemFailures"] = [];
    for (const record of event.Records) {
      const parsed = parseOutboundMessage(record.body);
      if (!parsed.ok) {
        // A malformed request is a bug upstream: fail it so the DLQ keeps it for an operator.
        logger.error("unusable outbound request", { sqsMessageId: record.messageId, error: parsed.error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
        continue;
      }
      logger.appendKeys({ correlationId: parsed.message.correlationId, requestId: parsed.message.requestId });
      try {
        const outcome = await processOutboundRequest(parsed.message, deps);
        logger.info("outbound outcome", { ...outcome });
        if (outcome.status === "retry") batchItemFailures.push({ itemIdentifier: record.messageId });
      } catch (err) {
        logger.error("outbound failed; SQS will redeliver", { error: String((err as Error)?.stack ?? err) });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      } finally {
        logger.removeKeys(["correlationId", "requestId"]);
      }
    }
    return { batchItemFailures };
  };
}
