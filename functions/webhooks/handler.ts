import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { makeClients } from "../../shared/aws/clients.ts";
import { secretStrings } from "../../shared/aws/secrets-manager.ts";
import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { buildEventsWorker, eventsSqsHandler, secretManagerStore } from "../../shared/events/index.ts";
import { makeLogger } from "../../shared/runtime/logger.ts";
import { failureReporter } from "../../shared/store/failure-reporter.ts";
import { makeStores } from "../../shared/store/stores.ts";

// Built once per cold start: signed events to the operator's endpoints (docs/events.md). No loopback setting here:
// in AWS an endpoint must be https on a public address.
const logger = makeLogger("postern-webhooks");
const resources = resourcesFromEnv();
const clients = makeClients(resources);
const stores = makeStores(clients, resources, logger);

export const handler = eventsSqsHandler(
  buildEventsWorker({
    resources,
    sqs: clients.sqs,
    dynamo: clients.dynamo,
    admin: stores.admin,
    secrets: secretManagerStore(secretStrings(new SecretsManagerClient({}))),
    failures: failureReporter({
      log: stores.failures,
      runs: stores.runs,
      events: stores.runEvents,
      logger,
      now: () => new Date(),
    }),
    logger,
  }),
);
