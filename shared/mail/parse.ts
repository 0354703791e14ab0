import PostalMime, { type Email, type PostalMimeOptions } from "postal-mime";
import type { AttachmentLimits } from "../config/index.ts";
import { fail, type Ok } from "../result.ts";
import { checkAttachments, checkMessageSize, checkShape, type LimitFailure } from "./limits.ts";
import { scanMime } from "./mime-scan.ts";
import { installCompactPassThrough } from "./postal-mime-pass-through.ts";

// Before any parse: 7bit/8bit parts decoded without postal-mime's per-line Blob (~34x the text in memory).
installCompactPassThrough();

/**
 * Bounded parsing (G7): size check, then a structural pre-scan of the raw bytes, then postal-mime, then the
 * attachment limits. postal-mime never sees a message the pre-scan refused, and it runs with its own depth and
 * header limits set from ours as a second line of defence.
 */

export interface ParsedAttachment {
  readonly filename: string | null;
  /** Lower-case MIME type as the sender declared it. */
  readonly contentType: string;
  readonly size: number;
  readonly content: Uint8Array;
  readonly disposition: string | null;
  readonly contentId: string | null;
}

/**
 * What postal-mime read. To and Cc are deliberately absent: who a mail addresses is read only from the signed
 * fields by the gate's strict parser (gate/signed-recipients.ts); postal-mime decodes encoded-words before it
 * parses addresses, so its reading of them is never used.
 */
export interface ParsedMail {
  readonly messageId: string | null;
  readonly inReplyTo: string | null;
  readonly references: string[];
  /** First Subject field, decoded. Check `subjectCount` before trusting it (G2: duplicates are suspect). */
  readonly subject: string | null;
  readonly subjectCount: number;
  readonly date: string | null;
  readonly text: string | null;
  readonly html: string | null;
  readonly attachments: ParsedAttachment[];
  /** Top-level header fields in order, duplicates kept; keys lower-case, values unfolded and not decoded. */
  readonly headers: { key: string; value: string }[];
}

export type ParseResult = Ok<{ readonly mail: ParsedMail }> | LimitFailure;

export type MimeParser = (raw: Uint8Array, options: PostalMimeOptions) => Promise<Email>;

/**
 * postal-mime copies a typed array into a fresh ArrayBuffer before it reads it (a copy of the whole message); a
 * view that spans its whole buffer is handed over as that buffer instead. postal-mime only reads it.
 */
const postalMime: MimeParser = (raw, options) =>
  PostalMime.parse(
    raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength && raw.buffer instanceof ArrayBuffer
      ? raw.buffer
      : raw,
    options,
  );

/** Message-ids from References / In-Reply-To: the `<...>` tokens, else whitespace-separated words. */
export function messageIds(value: string | undefined): string[] {
  if (!value) return [];
  const ids: string[] = [];
  let i = 0;
  while (i < value.length) {
    const open = value.indexOf("<", i);
    if (open < 0) break;
    const close = value.indexOf(">", open + 1);
    if (close < 0) break;
    ids.push(value.slice(open, close + 1));
    i = close + 1;
  }
  return ids.length ? ids : value.split(/\s+/).filter((w) => w.length > 0);
}

function toBytes(content: ArrayBuffer | Uint8Array | string): Uint8Array {
  if (typeof content === "string") return new TextEncoder().encode(content);
  return content instanceof Uint8Array ? content : new Uint8Array(content);
}

function toParsedMail(email: Email): ParsedMail {
  const attachments = email.attachments.map((a): ParsedAttachment => {
    const content = toBytes(a.content);
    return {
      filename: a.filename,
      contentType: a.mimeType,
      size: content.byteLength,
      content,
      disposition: a.disposition,
      contentId: a.contentId ?? null,
    };
  });
  return {
    messageId: email.messageId ?? null,
    inReplyTo: email.inReplyTo ?? null,
    references: messageIds(email.references),
    subject: email.subject ?? null,
    subjectCount: email.headers.filter((h) => h.key === "subject").length,
    date: email.date ?? null,
    text: email.text ?? null,
    html: email.html ?? null,
    attachments,
    headers: email.headers.map((h) => ({ key: h.key, value: h.value })),
  };
}

/** postal-mime's own limits, set from ours: if it ever disagreed with the pre-scan, it still stops. */
function parserOptions(limits: AttachmentLimits, encodedEmbeddedMessage: boolean): PostalMimeOptions {
  return {
    attachmentEncoding: "arraybuffer",
    maxNestingDepth: limits.maxMimeDepth + 1,
    maxHeadersSize: limits.maxHeaderBytes * (limits.maxMimeParts + 1),
    maxRfc822NestingDepth: limits.maxMimeDepth,
    // An encoded embedded message hides its tree from the pre-scan: keep all embedded messages opaque.
    forceRfc822Attachments: encodedEmbeddedMessage,
  };
}

export async function parseMail(
  raw: Uint8Array,
  limits: AttachmentLimits,
  parser: MimeParser = postalMime,
): Promise<ParseResult> {
  const size = checkMessageSize(raw.byteLength, limits);
  if (!size.ok) return size;
  const shape = scanMime(raw, limits);
  const structure = checkShape(shape, limits);
  if (!structure.ok) return structure;
  let email: Email;
  try {
    email = await parser(raw, parserOptions(limits, shape.encodedEmbeddedMessage));
  } catch (err) {
    // postal-mime rejects only on its own limits or malformed input: the message is refused, not retried.
    return fail("mime-unparseable", err instanceof Error ? err.message : String(err));
  }
  const mail = toParsedMail(email);
  const attachments = checkAttachments(
    mail.attachments.map((a) => a.size),
    limits,
  );
  if (!attachments.ok) return attachments;
  return { ok: true, mail };
}
