import { createHash } from "node:crypto";

/** Every event type an endpoint can subscribe to; the payload of each is in docs/events.md. */
export const WEBHOOK_EVENT_TYPES = [
  "mail.accepted",
  "mail.refused",
  "run.completed",
  "run.failed",
  "send.delivered",
  "send.failed",
  "plan.pending",
  "plan.applied",
  "plan.failed",
  "plan.cancelled",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * What an event is, from the pipeline's side (docs/events.md). The pipeline states what happened with ids and
 * reason codes; mail text rides separately (`mail`) and reaches only an endpoint that opted in.
 */

/** `webhook.test` is sent only by `postern webhooks test`, only to the endpoint tested. */
export type EventType = WebhookEventType | "webhook.test";

/** Flat, bounded values: ids, reason codes, counts. Never sender-written text (that is `mail`). */
export type EventValue = string | number | boolean | null | readonly string[];
export type EventData = Readonly<Record<string, EventValue>>;

/** Accepted mail's own text, for an endpoint that opted in (`includeMailText`). Never refused mail's (G4). */
export interface MailText {
  readonly subject: string;
  readonly text: string;
}

/** What an emission point hands to the sink. */
export interface EventInput {
  readonly type: EventType;
  /**
   * What makes this event unique within its type (`<agent>#<messageId>`, a run id): the event id is derived from it,
   * so a redelivered pipeline message that emits again emits the same id, and a receiver deduplicates on it.
   */
  readonly key: string;
  readonly data: EventData;
  readonly mail?: MailText;
}

/** An event as queued and delivered: `id` is the `webhook-id` header, the idempotency key. */
export interface WebhookEvent {
  readonly id: string;
  readonly type: EventType;
  /** When it happened (ISO 8601); the payload's `timestamp`. */
  readonly timestamp: string;
  readonly data: EventData;
  readonly mail?: MailText;
}

/** `evt_` + 32 hex digits of SHA-256 over the type and key: stable across redeliveries, unguessable from neither. */
export function eventId(type: EventType, key: string): string {
  return `evt_${createHash("sha256").update(`${type}\n${key}`).digest("hex").slice(0, 32)}`;
}

/**
 * Mail text kept on a queued event: no delivery sends more (the payload is at most 16 KiB), and an SQS message holds
 * at most 256 KiB, so a 10 MB mail must not make its event unqueueable.
 */
export const MAX_QUEUED_TEXT_CHARS = 16 * 1024;
export const MAX_QUEUED_SUBJECT_CHARS = 1000;

export function toEvent(input: EventInput, at: Date): WebhookEvent {
  const mail = input.mail && {
    subject: input.mail.subject.slice(0, MAX_QUEUED_SUBJECT_CHARS),
    text: input.mail.text.slice(0, MAX_QUEUED_TEXT_CHARS),
  };
  return {
    id: eventId(input.type, input.key),
    type: input.type,
    timestamp: at.toISOString(),
    data: input.data,
    ...(mail ? { mail } : {}),
  };
}

/** Where emission points send events. Never throws: an event that cannot be queued is a reported failure (G19). */
export interface WebhookSink {
  emit(event: EventInput): Promise<void>;
}

/** For cores wired without an events queue (tests, a stack that predates it). */
export const noWebhooks: WebhookSink = { emit: async () => {} };

/**
 * Where webhook signing secrets live in Secrets Manager: the stack grants the worker this prefix only, and the
 * store names each endpoint's secret under it (G16: never in the admin tables).
 */
export const WEBHOOK_SECRET_PREFIX = "postern/webhooks/";
