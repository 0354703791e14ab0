// Front door of shared/intake: the intake core: verify's SQS handler and composition root. Outside this
// folder, import this file only (docs/architecture.md).

export { verifySqsHandler } from "./sqs-handler.ts";
export { acceptedIds } from "./store-accepted.ts";
export { verifyDeps } from "./wiring.ts";
