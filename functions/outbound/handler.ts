import { makeClients } from "../../shared/aws/clients.ts";
import { makeSendingSesClient, sesSender } from "../../shared/aws/ses-sender.ts";
import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { loadRuntimeConfig } from "../../shared/config/runtime.ts";
import { eventSinkFor } from "../../shared/events/index.ts";
import { outboundSqsHandler } from "../../shared/outbound/sqs-handler.ts";
import { outboundDeps } from "../../shared/outbound/wiring.ts";
import { makeLogger } from "../../shared/runtime/logger.ts";
import { makeStores } from "../../shared/store/stores.ts";

// Built once per cold start. SES gets its own client with SDK retries off (a retried SendEmail can send twice).
const logger = makeLogger("postern-outbound");
const resources = resourcesFromEnv();
const clients = makeClients(resources);
const deps = outboundDeps({
  stores: makeStores(clients, resources, logger),
  ses: sesSender(makeSendingSesClient(resources)),
  config: loadRuntimeConfig().config,
  region: resources.region,
  logger,
  webhooks: eventSinkFor({ resources, sqs: clients.sqs, logger }),
});

export const handler = outboundSqsHandler(deps, logger);
