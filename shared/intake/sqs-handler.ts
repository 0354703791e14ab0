import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import type { KeyedLogger } from "../logger.ts";
import { sqsBatchHandler } from "../payloads/index.ts";
import { failureText } from "../result.ts";
import { parseNotification } from "./notification.ts";
import { processInbound, type VerifyDeps } from "./process.ts";

export interface VerifySqsOptions {
  readonly logger: KeyedLogger;
  /** The mail bucket: a notification naming another bucket is refused. */
  readonly bucket: string;
}

/** SES receipt notifications in, partial batch response out; everything else is the core's. */
export function verifySqsHandler(
  deps: VerifyDeps,
  options: VerifySqsOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const { bucket, logger } = options;
  return sqsBatchHandler(
    async (record, scope) => {
      const parsed = parseNotification(record.body, bucket);
      if (!parsed.ok) {
        // Retrying cannot fix it; failing it sends it to the DLQ, where it is kept and alarmed on. The log line
        // keeps its one-field form (`notification-invalid: <fields>`): alarms and searches match on it.
        logger.error("unusable SES notification", {
          sqsMessageId: record.messageId,
          reason: failureText(parsed),
        });
        return "reject";
      }
      if (parsed.event === null) {
        logger.info("SES setup notification acknowledged", {
          sqsMessageId: record.messageId,
          reason: parsed.setup,
        });
        return "done";
      }
      scope.appendKeys({ correlationId: parsed.event.sesMessageId });
      await processInbound(parsed.event, deps);
      return "done";
    },
    { logger, name: "verify" },
  );
}
