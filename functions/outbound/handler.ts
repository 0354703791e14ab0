import { makeClients, makeSendingSesClient, sesSender } from "../../shared/aws/index.ts";
import { loadRuntimeConfig, resourcesFromEnv } from "../../shared/config/index.ts";
import { outboundDeps, outboundSqsHandler } from "../../shared/outbound/index.ts";
import { makeLogger } from "../../shared/runtime/index.ts";
import { makeStores } from "../../shared/store/index.ts";

// Built once per cold start. SES gets its own client with SDK retries off (a retried SendEmail can send twice).
const logger = makeLogger("postern-outbound");
const resources = resourcesFromEnv();
const deps = outboundDeps({
  stores: makeStores(makeClients(resources), resources, logger),
  ses: sesSender(makeSendingSesClient(resources)),
  config: loadRuntimeConfig().config,
  region: resources.region,
  logger,
});

export const handler = outboundSqsHandler(deps, logger);
