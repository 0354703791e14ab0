import { makeClients } from "../../shared/aws/index.ts";
import { resourcesFromEnv } from "../../shared/config/index.ts";
import { eventSinkFor } from "../../shared/events/index.ts";
import { deliveryEventLog, deliveryEventsSqsHandler } from "../../shared/outbound/index.ts";
import { makeLogger } from "../../shared/runtime/index.ts";
import { makeStores } from "../../shared/store/index.ts";

// Built once per cold start: SES's bounces, complaints, rejects and delivery delays, recorded per agent.
const logger = makeLogger("postern-delivery-events");
const resources = resourcesFromEnv();
const clients = makeClients(resources);
const stores = makeStores(clients, resources, logger);

export const handler = deliveryEventsSqsHandler(
  deliveryEventLog(stores),
  logger,
  eventSinkFor({ resources, clients, stores, logger }),
);
