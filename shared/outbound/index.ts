// Front door of shared/outbound: the outbound core: the exactly-once send, its SQS handlers and composition
// root. Outside this folder, import this file only (docs/architecture.md).

export { abandonSend, processOutboundRequest } from "./process.ts";
export { sesHeaderMessageId } from "./ses-message-id.ts";
export { deliveryEventsSqsHandler, outboundSqsHandler } from "./sqs-handler.ts";
export { deliveryEventsDeps, outboundDeps } from "./wiring.ts";
