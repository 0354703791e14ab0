import { resourcesFromEnv } from "../../shared/config/index.ts";
import { makeLogger } from "../../shared/runtime/index.ts";
import { awsSecretsStore } from "../../shared/secrets/index.ts";
import { makeBasePlatform } from "../../shared/store/index.ts";
import { secretManagerStore, webhooksDeps, webhooksSqsHandler } from "../../shared/webhooks/index.ts";

// Built once per cold start: signed events to the operator's endpoints (docs/events.md). No loopback setting here:
// in AWS an endpoint must be https on a public address. A base platform: this function reads no deployment config
// (shared/store/platform.ts).
const logger = makeLogger("postern-webhooks");
const platform = makeBasePlatform({ resources: resourcesFromEnv(), logger });

export const handler = webhooksSqsHandler(
  webhooksDeps(platform, { secrets: secretManagerStore(awsSecretsStore()) }),
);
