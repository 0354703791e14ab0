import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { loadRuntimeConfig } from "../../shared/config/runtime.ts";
import { dnsResolverFromEnv } from "../../shared/runtime/dns.ts";
import { type FunctionLogger, makeLogger } from "../../shared/runtime/logger.ts";
import { parseNotification } from "../../shared/verify/notification.ts";
import { processInbound, type VerifyDeps } from "../../shared/verify/process.ts";
import { buildVerifyDeps } from "./deps.ts";

/** SQS batch in, partial batch response out; everything else is the core's. */
export function createVerifyHandler(deps: VerifyDeps, bucket: string, logger: FunctionLogger) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse["batchItemFailures"] = [];
    for (const record of event.Records) {
      const parsed = parseNotification(record.body, bucket);
      if (parsed.ok === "setup") {
        logger.info("SES setup notification acknowledged", {
          sqsMessageId: record.messageId,
          reason: parsed.reason,
        });
        continue;
      }
      if (!parsed.ok) {
        // Retrying cannot fix it; failing it sends it to the DLQ, where it is kept and alarmed on.
        logger.error("unusable SES notification", { sqsMessageId: record.messageId, reason: parsed.reason });
        batchItemFailures.push({ itemIdentifier: record.messageId });
        continue;
      }
      logger.appendKeys({ correlationId: parsed.event.sesMessageId });
      try {
        await processInbound(parsed.event, deps);
      } catch (err) {
        logger.error("verify failed; SQS will redeliver", { error: String((err as Error)?.stack ?? err) });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      } finally {
        logger.removeKeys(["correlationId"]);
      }
    }
    return { batchItemFailures };
  };
}

let lambdaHandler: ((event: SQSEvent) => Promise<SQSBatchResponse>) | undefined;

/** The Lambda entry point: dependencies built once per cold start from the environment CDK sets. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  if (!lambdaHandler) {
    const logger = makeLogger("postern-verify");
    const resources = resourcesFromEnv();
    const deps = buildVerifyDeps({
      resources,
      config: loadRuntimeConfig().config,
      resolver: dnsResolverFromEnv(),
      logger,
    });
    lambdaHandler = createVerifyHandler(deps, resources.bucket, logger);
  }
  return lambdaHandler(event);
}
