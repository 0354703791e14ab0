export { verifySqsHandler } from "./sqs-handler.ts";
export { acceptedIds } from "./store-accepted.ts";
export { buildVerifyDeps } from "./wiring.ts";
