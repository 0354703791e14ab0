/**
 * Engine notices (G6): refusals and budget notices sent to a proven sender. Their text is fixed and written here;
 * nothing the refused sender wrote (subject, body, display name) is ever quoted back, so a notice cannot be used
 * to reflect attacker text to a third party (backscatter, G4). Only the reason code travels on the outbound
 * queue; the outbound function renders the text from it.
 */

export const NOTICE_REASONS = [
  "access-denied",
  "unknown-recipient",
  "attachment-limits",
  "message-too-large",
  "not-addressed",
  "not-addressed-stale",
  "not-addressed-unsigned",
  "sender-budget",
  "agent-budget",
  "confirm-no-decision",
  "confirm-ambiguous",
  "confirm-several-codes",
  "confirm-expired",
  "confirm-already-decided",
  "run-failed",
] as const;
export type NoticeReason = (typeof NOTICE_REASONS)[number];

export function isNoticeReason(value: unknown): value is NoticeReason {
  return typeof value === "string" && (NOTICE_REASONS as readonly string[]).includes(value);
}

// The confirm notices (G14) tell an approver what their reply was read as and what to send. They name the code
// grouped, as the card does, and never write APPROVE or CANCEL next to it: a notice pasted back confirms nothing.
const HOW_TO_CONFIRM =
  "What to send: reply with a first line that is the word APPROVE, a space and the code below, and nothing else on that line and nothing above it (no greeting: you may write below it); to discard, the word CANCEL and the code as the first line. The word cancel anywhere in your reply, however it is written, stops an approval, and text you quote, forward or paste confirms nothing.";

const TEXT: Record<NoticeReason, { subject: string; line: string }> = {
  "access-denied": {
    subject: "Message not delivered: sender not permitted",
    line: "This address does not accept mail from your address, so your message was not delivered.",
  },
  "unknown-recipient": {
    subject: "Message not delivered: unknown address",
    line: "Your message was sent to an address at this domain that does not exist, so it was not delivered.",
  },
  "attachment-limits": {
    subject: "Message not delivered: attachment limits",
    line: "Your message exceeded the attachment limits of this address (number, size or structure of attachments), so it was not delivered.",
  },
  "message-too-large": {
    subject: "Message not delivered: message too large",
    line: "Your message exceeded the size limit of this address, so it was not delivered.",
  },
  "not-addressed": {
    subject: "Message not delivered: address not in To or Cc",
    line: "Your message did not name this address in its To or Cc field, so it was not delivered. To write to this address, put it in To or Cc (a blind copy is not accepted).",
  },
  "not-addressed-stale": {
    subject: "Message not delivered: sent too long ago",
    line: "Your message arrived more than an hour after the time it was written, and your mail system's signature does not cover its To or Cc field, so this address cannot tell that it was meant for it. It was not delivered. Please send it again.",
  },
  "not-addressed-unsigned": {
    subject: "Message not delivered: recipient not confirmed by your signature",
    line: "This address accepts only mail whose signature covers the To or Cc field that names it, and your mail system's signature does not, so your message was not delivered. Please ask your mail administrator about DKIM signing of To and Cc, or write from another mail system.",
  },
  "sender-budget": {
    subject: "Message not processed: daily limit reached",
    line: "You have reached the daily limit of messages this address answers for one sender. Please try again tomorrow.",
  },
  "agent-budget": {
    subject: "Message not processed: daily limit reached",
    line: "This address has reached its daily limit of messages it answers. Please try again tomorrow.",
  },
  "confirm-no-decision": {
    subject: "Nothing was approved",
    line: `Your reply about the operations waiting for approval did not start with the confirmation: its first line, in your own words, was not the word APPROVE or CANCEL followed by the code, so nothing was done. ${HOW_TO_CONFIRM}`,
  },
  "confirm-ambiguous": {
    subject: "Nothing was approved: your reply was not clear",
    line: `Your reply contained lines that do not agree (APPROVE first and the word cancel below it, a text part and an HTML part that say different things, or a line starting with APPROVE or CANCEL that we could not read), so nothing was done. ${HOW_TO_CONFIRM}`,
  },
  "confirm-several-codes": {
    subject: "Nothing was approved: more than one code",
    line: `Your reply contained confirmation lines for more than one code, so nothing was done. Answer each request in its own reply. ${HOW_TO_CONFIRM}`,
  },
  "confirm-expired": {
    subject: "Nothing was approved: the code has expired",
    line: "The code in your reply has expired, so nothing was done. The agent's request has to be made again to get a new code.",
  },
  "confirm-already-decided": {
    subject: "Nothing changed: already decided",
    line: "The operations for the code in your reply were already approved, cancelled or closed, so your reply changed nothing.",
  },
  // G19: short, engine-written, and never saying why (the reason is the operator's to read, not the sender's).
  "run-failed": {
    subject: "Your message could not be answered",
    line: "This address could not answer your message; the operator has been told. You will get at most one such notice a day.",
  },
};

export interface NoticeText {
  readonly subject: string;
  readonly body: string;
}

/**
 * The fixed text of a notice. `fromAddress` is the engine's own sending identity (the agent or the domain's
 * postmaster), never anything the sender wrote.
 */
export function composeNotice(reason: NoticeReason, fromAddress: string, code?: string): NoticeText {
  const t = TEXT[reason];
  // Only a confirm code from the engine's own alphabet is ever printed, grouped as the card shows it.
  const codeLine =
    code && /^[A-Z2-9]{10}$/.test(code)
      ? [`The code: ${code.slice(0, 4)} ${code.slice(4, 8)} ${code.slice(8)}`, ""]
      : [];
  return {
    subject: t.subject,
    body: [
      t.line,
      "",
      ...codeLine,
      `This is an automatic notice from ${fromAddress}. Replies to it are not read.`,
      `Reason code: ${reason}`,
      "",
    ].join("\n"),
  };
}

/** The postmaster identity of a registered domain, the sender of notices that concern no agent. */
export function postmasterOf(domain: string): { address: string; name: string } {
  return { address: `postmaster@${domain.toLowerCase()}`, name: "Mail Delivery System" };
}

/**
 * The notice for a gate refusal reason (shared/gate: access, routing and limit codes), or null when the reason
 * warrants none. Several gate codes share one notice: the sender learns the kind of refusal, not our internals.
 */
export function noticeReasonFor(gateReason: string, detail?: string): NoticeReason | null {
  switch (gateReason) {
    // the detail says which addressing proof was missing (shared/gate/addressed.ts), so the notice is true
    case "not-addressed":
      if (detail === "date-stale") return "not-addressed-stale";
      if (detail === "date-unsigned" || detail === "signed-addressing-required")
        return "not-addressed-unsigned";
      return "not-addressed";
    case "access-denied":
    case "access-denied-global":
      return "access-denied";
    case "unknown-recipient":
    case "agent-disabled":
      return "unknown-recipient";
    case "message-too-large":
    case "headers-too-large":
      return "message-too-large";
    case "mime-too-deep":
    case "mime-too-many-parts":
    case "too-many-attachments":
    case "attachment-too-large":
    case "attachments-too-large":
    case "mime-unparseable":
      return "attachment-limits";
    default:
      return isNoticeReason(gateReason) ? gateReason : null;
  }
}

/**
 * The lines of the confirm notices (G14). They name CANCEL in the engine's words; a notice an approver's client
 * pastes back unquoted under a fresh `APPROVE <code>` is not their retraction (confirm-reading.ts).
 */
export function confirmNoticeLines(): readonly string[] {
  return NOTICE_REASONS.filter((r) => r.startsWith("confirm-")).map((r) => TEXT[r].line);
}
