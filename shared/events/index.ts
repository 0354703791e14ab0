// Signed events out (docs/events.md): the module's one front door. Emission points take an `EventSink`; the
// worker is `webhooksSqsHandler` over `webhooksDeps`; the CLI and console read the deliveries record and keep
// the secrets through the stores below.

export { WEBHOOK_EVENT_TYPES, type WebhookEventType, type WebhookItem } from "../admin/index.ts";
export {
  type EventData,
  type EventInput,
  type EventSink,
  type EventType,
  eventId,
  type MailText,
  noEvents,
  toEvent,
  type WebhookEvent,
} from "../ports/index.ts";
export { type BreakerState, breakerWait } from "./breaker.ts";
export {
  type DeliverOutcome,
  type DeliveryReason,
  deliverEvent,
  UNDELIVERED,
  type UndeliveredReason,
} from "./deliver.ts";
export { DELIVERY_RECORD_DAYS, dynamoEventState } from "./dynamo-state.ts";
export { queueEventSink } from "./emitter.ts";
export {
  type EndpointReachOptions,
  endpointReach,
  LOOPBACK_SWITCH,
} from "./endpoint-reach.ts";
export {
  addEndpoint,
  type EndpointInput,
  type EndpointPorts,
  type EndpointWriteFailure,
  endpointItem,
  MAX_OVERLAP_HOURS,
  removeEndpoint,
  rotateEndpoint,
  testDelivery,
} from "./endpoints.ts";
export { fanOut } from "./fan-out.ts";
export { fileSecretStore } from "./file-secrets.ts";
export { parseEventsMessage } from "./message.ts";
export { MAX_PAYLOAD_BYTES, payloadFor } from "./payload.ts";
export { pinnedPost } from "./pinned-post.ts";
export {
  CRASH_RECEIVES,
  DEFAULT_POLICY,
  type DeliveryPolicy,
  maxAttempts,
  maxReceivesFor,
  retryDelay,
  SQS_MAX_DELAY_SECONDS,
} from "./policy.ts";
export type {
  AttemptCounter,
  BreakerStore,
  DeliverDeps,
  DeliveryEntry,
  DeliveryLog,
  EventsMessage,
  Post,
  PostResult,
} from "./ports.ts";
export {
  type SecretStringsPort,
  secretManagerStore,
  webhookSecretName,
} from "./secret-manager-store.ts";
export { type EndpointSecrets, rotated, type SecretStore, signingSecrets } from "./secrets.ts";
export { newSecret, type SignedHeaders, signDelivery } from "./signing.ts";
export { type EventsWorkerDeps, webhooksSqsHandler } from "./sqs-handler.ts";
export { eventSinkFor, SUBSCRIBERS_MAX_AGE_MS, webhooksDeps } from "./wiring.ts";
