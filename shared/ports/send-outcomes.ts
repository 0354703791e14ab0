import { STATE_KEYS } from "../config/index.ts";
// What SES reports after a send was accepted: a bounce, a complaint, a reject or a delivery delay, per
// agent. Recorded by the delivery-events function (shared/outbound/send-outcomes.ts) in the state table and
// shown on the agent's console page.

export type SendOutcomeKind = "bounce" | "complaint" | "reject" | "delivery-delay";

/** One recipient as SES's event names it, with the remote server's status and diagnostic when it gave them. */
export interface SendOutcomeRecipient {
  readonly address: string;
  readonly status?: string;
  readonly diagnostic?: string;
}

export interface SendOutcome {
  /** The agent that sent the mail: the From address of the send (the outbound forces it, G9), lower-cased. */
  readonly agent: string;
  readonly kind: SendOutcomeKind;
  /** When SES saw it (the event's timestamp; a reject has none, so the send's). ISO 8601. */
  readonly at: string;
  /** The SES message id of the send (`mail.messageId`): what `postern outbound` and the mailbox record carry. */
  readonly sesMessageId: string;
  /** SES's classification: `Permanent/General`, `abuse`, `Bad content`, `TransientCommunicationFailure`, ... */
  readonly detail: string;
  readonly recipients: readonly SendOutcomeRecipient[];
}

/** The state table's partition of one agent's delivery events (sk `<at>#<sesMessageId>#<kind>`, newest last). */
export const deliveryEventsPk = STATE_KEYS.deliveryEvents;

/** Where the delivery-events function records an event; once per (agent, time, message, kind). */
export interface SendOutcomeLog {
  record(event: SendOutcome): Promise<void>;
}

/** An agent's delivery events read back, newest first (shared/store/delivery-event-reads.ts). */
export interface SendOutcomeReader {
  recent(agent: string, limit: number): Promise<SendOutcome[]>;
}
