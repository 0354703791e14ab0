// Signed events out (docs/events.md): the module's one front door. Emission points take an `WebhookSink`; the
// worker is `webhooksSqsHandler` over `webhooksDeps`; the CLI and console read the deliveries record and keep
// the secrets through the stores below.

export { WEBHOOK_EVENT_TYPES, type WebhookItem } from "../admin/index.ts";
export type { WebhooksPayload } from "../payloads/index.ts";
export type { WebhookSink } from "../ports/index.ts";
export type { BreakerState } from "./breaker.ts";
export { dynamoWebhookState } from "./dynamo-state.ts";
export { type EndpointReachOptions, endpointReach } from "./endpoint-reach.ts";
export {
  addEndpoint,
  type EndpointInput,
  endpointItem,
  MAX_OVERLAP_HOURS,
  removeEndpoint,
  rotateEndpoint,
  testDelivery,
} from "./endpoints.ts";
export { fileSecretStore } from "./file-secrets.ts";
export { DEFAULT_POLICY, type DeliveryPolicy, maxReceivesFor } from "./policy.ts";
export type { DeliveryEntry, DeliveryLog } from "./ports.ts";
export { secretManagerStore } from "./secret-manager-store.ts";
export type { SecretStore } from "./secrets.ts";
export { webhooksSqsHandler } from "./sqs-handler.ts";
export { webhookSinkFor, webhooksDeps } from "./wiring.ts";
