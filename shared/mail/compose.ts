import MailComposer from "nodemailer/lib/mail-composer/index.js";
import type { AttachmentLimits } from "../config/index.ts";
import { type Fail, fail, type Ok } from "../result.ts";
import type { Recipients } from "./recipients.ts";
import {
  cleanHeaderText,
  NO_SUBJECT,
  replySubject,
  replyThreading,
  type ThreadingSource,
} from "./threading.ts";

/**
 * Builds the raw MIME of everything Postern sends (G5, G9). The policy lives here, not in the caller: From is
 * always the sending identity passed in (the agent from the admin table, or the postmaster for notices; there is
 * no field through which a request could name another), a reply's Subject and threading come from the stored
 * inbound message, and the recursion and Auto-Submitted headers are stamped from the origin.
 */

export const RECURSION_HEADER = "X-Postern-Recursion";

/** Who the mail is from: engine-owned data (admin table / config), never request data. */
export interface SendingIdentity {
  readonly address: string;
  readonly name: string;
}

/** The stored inbound message a reply answers: threading fields, subject and its hop count (from verify). */
export interface ReplyParent extends ThreadingSource {
  readonly subject: string | null;
  readonly hop: number;
}

export type ComposeMode =
  | { readonly kind: "reply"; readonly parent: ReplyParent }
  | {
      readonly kind: "new";
      readonly subject: string;
      /** Set on a notice: the hop count of the message it answers, so notices count toward the loop limit. */
      readonly respondsToHop?: number;
    };

/**
 * `agent`: the agent's own mail. `notice`: engine-written notices (bounces, budget notices). `operator`: mail an
 * operator sends with the CLI, which is not agent mail and is not stamped (G5).
 */
export type MailOrigin = "agent" | "notice" | "operator";

export interface OutboundAttachment {
  readonly filename: string | null;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

export interface ComposeInput {
  readonly from: SendingIdentity;
  readonly mode: ComposeMode;
  readonly origin: MailOrigin;
  readonly recipients: Recipients;
  readonly body: string;
  readonly attachments: readonly OutboundAttachment[];
  readonly messageId: string;
  /** From an injected clock. */
  readonly date: Date;
  readonly limits: AttachmentLimits;
}

export interface ComposedMail {
  readonly raw: Buffer;
  readonly subject: string;
  readonly messageId: string;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  /** The X-Postern-Recursion value stamped, or null for operator mail. */
  readonly hop: number | null;
  readonly autoSubmitted: "auto-replied" | "auto-generated" | null;
}

export type ComposeFailureReason =
  | "too-many-attachments"
  | "attachment-too-large"
  | "attachments-too-large"
  | "message-too-large";

export type ComposeResult = Ok<ComposedMail> | Fail<ComposeFailureReason>;

/** A MIME type we pass through; anything else (stored metadata is sender-written) becomes octet-stream. */
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

function attachmentLimitFailure(
  attachments: readonly OutboundAttachment[],
  limits: AttachmentLimits,
): ComposeFailureReason | null {
  if (attachments.length > limits.maxAttachments) return "too-many-attachments";
  let total = 0;
  for (const a of attachments) {
    if (a.bytes.byteLength > limits.maxAttachmentBytes) return "attachment-too-large";
    total += a.bytes.byteLength;
  }
  return total > limits.maxTotalAttachmentBytes ? "attachments-too-large" : null;
}

/** Hop to stamp: fresh agent mail starts at 1, a reply is the inbound count + 1, operator mail carries none. */
export function stampedHop(origin: MailOrigin, mode: ComposeMode): number | null {
  if (origin === "operator") return null;
  const base = mode.kind === "reply" ? mode.parent.hop : (mode.respondsToHop ?? 0);
  return Math.max(0, Math.trunc(base)) + 1;
}

/** RFC 3834 §5: responses to a message are `auto-replied`; mail the engine starts itself is `auto-generated`. */
export function autoSubmittedValue(origin: MailOrigin, mode: ComposeMode): ComposedMail["autoSubmitted"] {
  if (origin === "operator") return null;
  return mode.kind === "reply" && origin === "agent" ? "auto-replied" : "auto-generated";
}

export async function composeMime(input: ComposeInput): Promise<ComposeResult> {
  const limitFailure = attachmentLimitFailure(input.attachments, input.limits);
  if (limitFailure) return fail(limitFailure);

  const { mode, origin } = input;
  const threading = mode.kind === "reply" ? replyThreading(mode.parent) : { inReplyTo: null, references: [] };
  const subject =
    mode.kind === "reply" ? replySubject(mode.parent.subject) : cleanHeaderText(mode.subject) || NO_SUBJECT;
  const hop = stampedHop(origin, mode);
  const autoSubmitted = autoSubmittedValue(origin, mode);

  const headers: Record<string, string> = {};
  if (hop !== null) headers[RECURSION_HEADER] = String(hop);
  if (autoSubmitted !== null) headers["Auto-Submitted"] = autoSubmitted;

  const composer = new MailComposer({
    from: { name: cleanHeaderText(input.from.name), address: input.from.address },
    to: [...input.recipients.to],
    cc: [...input.recipients.cc],
    // Bcc never appears in the headers (keepBcc stays false); SES gets it in the envelope Destination.
    subject,
    text: input.body,
    textEncoding: "quoted-printable",
    messageId: input.messageId,
    date: input.date,
    headers,
    ...(threading.inReplyTo ? { inReplyTo: threading.inReplyTo } : {}),
    ...(threading.references.length ? { references: [...threading.references] } : {}),
    attachments: input.attachments.map((a) => ({
      // Stored filenames came from senders; nodemailer encodes them (RFC 2231), we strip line breaks first.
      filename: cleanHeaderText(a.filename ?? "") || "attachment",
      contentType: MIME_TYPE.test(a.contentType.toLowerCase())
        ? a.contentType.toLowerCase()
        : "application/octet-stream",
      content: Buffer.from(a.bytes),
    })),
  });
  const raw = await composer.compile().build();
  if (raw.byteLength > input.limits.maxMessageBytes) return fail("message-too-large");
  return {
    ok: true,
    raw,
    subject,
    messageId: input.messageId,
    inReplyTo: threading.inReplyTo,
    references: threading.references,
    hop,
    autoSubmitted,
  };
}
