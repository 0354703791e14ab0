export { abandonSend, processOutboundRequest } from "./process.ts";
export { sesHeaderMessageId } from "./ses-message-id.ts";
export { deliveryEventsSqsHandler, outboundSqsHandler } from "./sqs-handler.ts";
export { deliveryEventLog, outboundDeps } from "./wiring.ts";
