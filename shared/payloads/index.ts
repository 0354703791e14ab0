// Front door of shared/payloads: the queue message shapes and the partial-batch helper. Outside this folder,
// import this file only (docs/architecture.md).

export {
  agentStepPayloadSchema,
  type CarriedResult,
  type ConfirmEnvelope,
  type ConfirmPayload,
  confirmEnvelopeSchema,
  firstStepOf,
  parseAgentStepPayload,
  type StepPayload,
  stepPayloadSchema,
  type TickPayload,
  type Unclear,
} from "./agent-step.ts";
export {
  noticeRequest,
  type OutboundPayload,
  type OutboundRequest,
  parseOutboundPayload,
  type RunStartedBy,
} from "./outbound.ts";
export { type RecordOutcome, type RecordScope, sqsBatchHandler } from "./partial-batch.ts";
export { perReceive } from "./per-receive.ts";
export { parseWebhooksPayload, type WebhooksPayload } from "./webhooks.ts";
