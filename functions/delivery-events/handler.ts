import { makeClients } from "../../shared/aws/clients.ts";
import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { deliveryEventsSqsHandler } from "../../shared/outbound/sqs-handler.ts";
import { deliveryEventLog } from "../../shared/outbound/wiring.ts";
import { makeLogger } from "../../shared/runtime/logger.ts";
import { makeStores } from "../../shared/store/stores.ts";

// Built once per cold start: SES's bounces, complaints, rejects and delivery delays, recorded per agent.
const logger = makeLogger("postern-delivery-events");
const resources = resourcesFromEnv();
const stores = makeStores(makeClients(resources), resources, logger);

export const handler = deliveryEventsSqsHandler(deliveryEventLog(stores), logger);
