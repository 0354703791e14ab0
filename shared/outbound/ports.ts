import type { AgentItem } from "../admin/index.ts";
import type { AccessRule, DeploymentConfig } from "../config/index.ts";
import type { Logger } from "../logger.ts";
import type { FailureSink, MessageRecord, SendOutcomeLog, WebhookSink } from "../ports/index.ts";
import type { AttachmentMeta } from "../tool-framework/index.ts";
import type { SendStateReason } from "./reasons.ts";

/**
 * The outbound core's I/O, as small interfaces. The core knows neither DynamoDB nor SES; adapters live next to
 * it (state-store.ts, ses-sender.ts) and the wiring binds them to the shared repositories.
 */

/**
 * Per-request send state (pk `send#<requestId>` in the `state` table):
 * claimed → sending → sent → done, with `failed` (permanent, nothing sent) and `unknown` (a crash or an
 * unanswered SES call between `sending` and `sent`: SES may or may not have accepted it; never re-sent).
 */
export type SendState = "claimed" | "sending" | "sent" | "done" | "unknown" | "failed";

/** Everything needed to finish a send after a crash, fixed when the item enters `sending`. */
export interface SendPlan {
  readonly agent: string;
  readonly kind: "agent" | "notice";
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  readonly subject: string;
  /** The thread the sent message joins (the inbound's thread on a reply; a new one otherwise). */
  readonly threadId: string;
  readonly replyToMessageId: string | null;
  /** Our Message-ID in the composed mail (SES replaces it; the recorded one comes from SES's answer). */
  readonly composedMessageId: string;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  readonly hop: number | null;
  readonly attachments: readonly AttachmentMeta[];
  readonly rawKey: string;
  readonly bodyKey: string;
  /** The body text, when short enough to keep on the mailbox item (then nothing is written at `bodyKey`). */
  readonly body?: string;
  /** Mailbox message id of the sent message (derived from the request id). */
  readonly mailboxId: string;
}

export interface SendRecord {
  readonly requestId: string;
  readonly state: SendState;
  readonly claimedAt: string;
  readonly updatedAt: string;
  readonly sendingAt?: string;
  readonly plan?: SendPlan;
  readonly sesMessageId?: string;
  readonly headerMessageId?: string;
  readonly sentAt?: string;
  readonly reason?: SendStateReason;
  /** With `failed`: SES's own message for an SES refusal, or the engine's detail (which address, which limit). */
  readonly detail?: string;
}

export type SendRecordFields = Partial<Omit<SendRecord, "requestId" | "state" | "claimedAt" | "updatedAt">>;

export interface SendStateStore {
  get(requestId: string): Promise<SendRecord | null>;
  /** Create the item in `claimed`; false when it already exists (a redelivery or a concurrent copy). */
  claim(requestId: string, at: string): Promise<boolean>;
  /** Conditional move: applied only if the current state is one of `from`; false otherwise. */
  transition(
    requestId: string,
    from: readonly SendState[],
    to: SendState,
    fields: SendRecordFields,
    at: string,
  ): Promise<boolean>;
}

export interface SesSendInput {
  readonly raw: Uint8Array;
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  readonly configurationSet?: string;
}

/**
 * `accepted`: SES took the message. `rejected`: SES answered with an error, so nothing was sent; `retryable`
 * for throttling. A thrown error means no answer (timeout, connection reset, 5xx): the outcome is unknown.
 */
export type SesOutcome =
  | { readonly kind: "accepted"; readonly messageId: string }
  | {
      readonly kind: "rejected";
      readonly retryable: boolean;
      /** SES's error code (`MessageRejected`, ...): the stable part, in the send state's reason. */
      readonly code: string;
      /** SES's own message ("Email address is not verified. ..."): what tells the operator which fix. */
      readonly message?: string;
    };

export interface SesPort {
  send(input: SesSendInput): Promise<SesOutcome>;
}

/** A stored message a reply may answer, as the mailbox holds it. */
export type ReplyTarget = Pick<
  MessageRecord,
  "id" | "threadId" | "direction" | "from" | "to" | "cc" | "subject" | "references" | "inReplyTo" | "hop"
> & {
  /** The mail's Message-ID in angle brackets, as a reply's In-Reply-To writes it; null when it has none. */
  readonly headerMessageId: string | null;
};

/** The sent message as recorded in the agent's mailbox and thread. */
export interface SentMessage {
  readonly agent: string;
  readonly id: string;
  readonly direction: "out";
  readonly threadId: string;
  /** What the recipients got: SES's Message-ID, so their replies thread onto this record. */
  readonly headerMessageId: string;
  readonly sesMessageId: string;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  readonly subject: string;
  readonly sentAt: string;
  readonly bodyKey: string;
  /** The body text when kept on the item (SendPlan.body). */
  readonly body?: string;
  readonly rawKey: string;
  readonly attachments: readonly AttachmentMeta[];
  readonly hop: number | null;
  readonly requestId: string;
  readonly replyToMessageId: string | null;
}

export interface OutboundMailbox {
  /** Scoped to `agent`: another agent's message is null, so a reply can never join another agent's thread. */
  getMessage(agent: string, id: string): Promise<ReplyTarget | null>;
  /** Idempotent (same id, same content): finishing after a crash may record twice. */
  recordSent(message: SentMessage): Promise<void>;
}

export interface AttachmentSource {
  /** Resolves only within `agent`'s mailbox (G12); `threadId` narrows to the reply's thread when set. */
  load(
    agent: string,
    id: string,
    threadId: string | null,
  ): Promise<{ readonly meta: AttachmentMeta; readonly bytes: Uint8Array } | null>;
}

export interface BlobSink {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
}

export interface AgentDirectory {
  get(address: string): Promise<AgentItem | null>;
  /** The agent's outbound rules (admin table `outboundRules`), validated and fail-closed. */
  outboundRules(address: string): Promise<readonly AccessRule[]>;
}

export interface OutboundDeps {
  readonly state: SendStateStore;
  readonly ses: SesPort;
  readonly mailbox: OutboundMailbox;
  readonly attachments: AttachmentSource;
  readonly blobs: BlobSink;
  readonly agents: AgentDirectory;
  readonly config: DeploymentConfig;
  readonly clock: () => Date;
  readonly logger: Logger;
  /** G19: a request that ends `failed` is reported here (a metric, an alarm, the run's trace and row). */
  readonly failures: FailureSink;
  /** SES message id → the Message-ID header recipients received (see ses-message-id.ts). */
  headerMessageId(sesMessageId: string): string;
  /**
   * How long a `sending` item may belong to a live worker. A redelivery that finds `sending` younger than this
   * retries later; older means the worker died in the window, and the item becomes `unknown`. Must exceed the
   * SES call timeout. Default 120 s.
   */
  readonly inFlightLeaseMs?: number;
  /** A new record starts: what the wiring keeps for one delivery (the admin snapshot) is read afresh. */
  beginReceive?(): void;
  /** Signed events out (docs/events.md): `send.delivered` when SES accepted a send, `send.failed` when it ends failed. */
  readonly webhooks: WebhookSink;
}

/** What the delivery-events function records SES's events with (shared/outbound/send-outcomes.ts). */
export interface DeliveryEventsDeps {
  readonly log: SendOutcomeLog;
  readonly logger: Logger;
  /** Signed events out: `send.bounced`, `send.complained`, ... (docs/events.md); none without an events queue. */
  readonly webhooks: WebhookSink;
}
