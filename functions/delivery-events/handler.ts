import { resourcesFromEnv } from "../../shared/config/index.ts";
import { deliveryEventsDeps, deliveryEventsSqsHandler } from "../../shared/outbound/index.ts";
import { makeLogger } from "../../shared/runtime/index.ts";
import { makeBasePlatform } from "../../shared/store/index.ts";
import { webhookSinkFor } from "../../shared/webhooks/index.ts";

// Built once per cold start: SES's bounces, complaints, rejects and delivery delays, recorded per agent. A base
// platform: this function reads no deployment config (shared/store/platform.ts).
const logger = makeLogger("postern-delivery-events");
const platform = makeBasePlatform({ resources: resourcesFromEnv(), logger });
const deps = deliveryEventsDeps(platform, { webhooks: webhookSinkFor(platform) });

export const handler = deliveryEventsSqsHandler(deps, { logger });
