import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { makeClients } from "../../shared/aws/clients.ts";
import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { loadRuntimeConfig } from "../../shared/config/runtime.ts";
import { processOutboundRequest } from "../../shared/outbound/process.ts";
import { parseOutboundMessage } from "../../shared/outbound/request.ts";
import { makeSendingSesClient, sesSender } from "../../shared/outbound/ses-sender.ts";
import { outboundDeps } from "../../shared/outbound/wiring.ts";
import { makeLogger } from "../../shared/runtime/logger.ts";
import { makeStores } from "../../shared/store/stores.ts";

// Built once per cold start; the handler only maps SQS records to the core and back.
const logger = makeLogger("postern-outbound");
const resources = resourcesFromEnv();
const stores = makeStores(makeClients(resources), resources, logger);
const ses = sesSender(makeSendingSesClient(resources));
const deps = outboundDeps({
  stores,
  ses,
  config: loadRuntimeConfig().config,
  region: resources.region,
  logger,
});

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse["batchItemFailures"] = [];
  for (const record of event.Records) {
    const parsed = parseOutboundMessage(record.body);
    if (!parsed.ok) {
      // A malformed request is a bug upstream: fail it so it lands in the DLQ, kept for an operator.
      logger.error("unusable outbound request", { sqsMessageId: record.messageId, error: parsed.error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    logger.appendKeys({ correlationId: parsed.message.correlationId, requestId: parsed.message.requestId });
    try {
      const outcome = await processOutboundRequest(parsed.message, deps);
      if (outcome.status === "retry") batchItemFailures.push({ itemIdentifier: record.messageId });
    } catch (err) {
      logger.error("outbound failed; SQS will redeliver", { error: String((err as Error)?.stack ?? err) });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    } finally {
      logger.removeKeys(["correlationId", "requestId"]);
    }
  }
  return { batchItemFailures };
}
