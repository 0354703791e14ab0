import { createHash } from "node:crypto";

/**
 * The Message-ID we put on a request's mail: `<hash(requestId)@agent-domain>`. Derived from the request id so a
 * redelivered request composes the same id (the evidence copy matches what was attempted). SES replaces it on
 * send (its docs: "If you provide a Message-ID header, Amazon SES overrides the header with its own value"); the
 * id recipients actually see is recorded from SES's answer, see shared/outbound/ses-message-id.ts.
 */
export function requestMessageId(requestId: string, fromAddress: string): string {
  const domain = fromAddress.slice(fromAddress.lastIndexOf("@") + 1).toLowerCase();
  const digest = createHash("sha256").update(requestId).digest("hex").slice(0, 32);
  return `<${digest}.postern@${domain}>`;
}

/** A short stable id derived from the request id (mailbox message id, new thread id). */
export function derivedId(prefix: string, requestId: string): string {
  return `${prefix}-${createHash("sha256").update(requestId).digest("hex").slice(0, 24)}`;
}

/**
 * The mailbox id of a sent message, in the mailbox's time-sortable shape (`<yyyymmddThhmmssmmm>-<8 hex>`, as
 * shared/store/message-repo.ts `newMessageId` makes) but with the hex taken from the request id, so a replay
 * records the same item instead of a second one.
 */
export function sentMailboxId(at: Date, requestId: string): string {
  const t = at.toISOString().replace(/[-:.Z]/g, "");
  return `${t}-${createHash("sha256").update(`mailbox:${requestId}`).digest("hex").slice(0, 8)}`;
}
