import { awsSecretStrings, makeClients } from "../../shared/aws/index.ts";
import { resourcesFromEnv } from "../../shared/config/index.ts";
import { buildEventsWorker, eventsSqsHandler, secretManagerStore } from "../../shared/events/index.ts";
import { makeLogger } from "../../shared/runtime/index.ts";
import { failureReporter, makeStores } from "../../shared/store/index.ts";

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
    secrets: secretManagerStore(awsSecretStrings()),
    failures: failureReporter(stores, logger, () => new Date()),
    logger,
  }),
);
