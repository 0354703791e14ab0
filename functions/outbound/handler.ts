import { makeSendingSesClient, sesSender } from "../../shared/aws/index.ts";
import { loadRuntimeConfig, resourcesFromEnv } from "../../shared/config/index.ts";
import { outboundDeps, outboundSqsHandler } from "../../shared/outbound/index.ts";
import { makeLogger } from "../../shared/runtime/index.ts";
import { makePlatform } from "../../shared/store/index.ts";
import { webhookSinkFor } from "../../shared/webhooks/index.ts";

// Built once per cold start. SES gets its own client with SDK retries off (a retried SendEmail can send twice).
const logger = makeLogger("postern-outbound");
const resources = resourcesFromEnv();
const platform = makePlatform({ resources, config: loadRuntimeConfig().config, logger });
const deps = outboundDeps(platform, {
  ses: sesSender(makeSendingSesClient(resources)),
  webhooks: webhookSinkFor(platform),
});

export const handler = outboundSqsHandler(deps, { logger });
