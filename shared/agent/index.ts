export { toModelToolResult } from "./loop/tool-result.ts";
export { createAttachmentSource } from "./mailbox/mailbox.ts";
export { approversFor } from "./plans/apply-plan.ts";
export { canonicalJson } from "./plans/plan.ts";
export { agentStepSqsHandler, maxReceivesFromEnv } from "./sqs-handler.ts";
export { buildStepDeps } from "./wiring.ts";
