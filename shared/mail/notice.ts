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
  "sender-budget",
  "agent-budget",
] as const;
export type NoticeReason = (typeof NOTICE_REASONS)[number];

export function isNoticeReason(value: unknown): value is NoticeReason {
  return typeof value === "string" && (NOTICE_REASONS as readonly string[]).includes(value);
}

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
  "sender-budget": {
    subject: "Message not processed: daily limit reached",
    line: "You have reached the daily limit of messages this address answers for one sender. Please try again tomorrow.",
  },
  "agent-budget": {
    subject: "Message not processed: daily limit reached",
    line: "This address has reached its daily limit of messages it answers. Please try again tomorrow.",
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
export function composeNotice(reason: NoticeReason, fromAddress: string): NoticeText {
  const t = TEXT[reason];
  return {
    subject: t.subject,
    body: [
      t.line,
      "",
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
export function noticeReasonFor(gateReason: string): NoticeReason | null {
  switch (gateReason) {
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
