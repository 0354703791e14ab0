// Front door of shared/agent: the agent core: agent-step's SQS handler and composition root, and what other
// modules use of it. Outside this folder, import this file only (docs/architecture.md).

export { toModelToolResult } from "./loop/tool-result.ts";
export { createAttachmentSource } from "./mailbox/mailbox.ts";
export { approversFor } from "./plans/apply-plan.ts";
export { canonicalJson } from "./plans/plan.ts";
export { agentStepSqsHandler, maxReceivesFromEnv } from "./sqs-handler.ts";
export { agentStepDeps } from "./wiring.ts";
