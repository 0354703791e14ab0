import { makeClients } from "../../shared/aws/clients.ts";
import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { eventSinkFor } from "../../shared/events/index.ts";
import { deliveryEventsSqsHandler } from "../../shared/outbound/sqs-handler.ts";
import { deliveryEventLog } from "../../shared/outbound/wiring.ts";
import { makeLogger } from "../../shared/runtime/logger.ts";
import { makeStores } from "../../shared/store/stores.ts";

// Built once per cold start: SES's bounces, complaints, rejects and delivery delays, recorded per agent (issue 21).
const logger = makeLogger("postern-delivery-events");
const resources = resourcesFromEnv();
const clients = makeClients(resources);
const stores = makeStores(clients, resources, logger);

export const handler = deliveryEventsSqsHandler(
  deliveryEventLog(stores),
  logger,
  eventSinkFor({ resources, sqs: clients.sqs, logger }),
);
