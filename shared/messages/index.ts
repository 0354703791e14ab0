// Front door of shared/messages: the queue message shapes and the partial-batch helper. Outside this folder,
// import this file only (docs/architecture.md).

export {
  agentStepMessageSchema,
  type CarriedResult,
  type ConfirmEnvelope,
  type ConfirmMessage,
  confirmEnvelopeSchema,
  firstStepOf,
  parseAgentStepMessage,
  type StepMessage,
  stepMessageSchema,
  type TickMessage,
  type Unclear,
} from "./agent-step.ts";
export { type EventsMessage, parseEventsMessage } from "./events.ts";
export {
  noticeRequest,
  type OutboundMessage,
  type OutboundRequest,
  parseOutboundMessage,
  type RunStartedBy,
} from "./outbound.ts";
export { type RecordOutcome, type RecordScope, sqsBatchHandler } from "./partial-batch.ts";
export { perDelivery } from "./per-delivery.ts";
