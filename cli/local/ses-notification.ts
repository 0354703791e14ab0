import { randomBytes } from "node:crypto";

/**
 * The notification an SES receipt rule with an S3 action publishes to its SNS topic ("Contents of notifications
 * for Amazon SES email receiving"). The local SMTP intake builds exactly this, so the verify handler parses the
 * same event locally and in AWS. Header-derived fields are informational: the gate never routes or authorises on
 * them (it re-reads the raw mail and takes recipients from `receipt.recipients`, the envelope).
 */
export interface SesHeader {
  readonly name: string;
  readonly value: string;
}

export interface SesCommonHeaders {
  readonly returnPath?: string;
  readonly from?: readonly string[];
  readonly sender?: readonly string[];
  readonly replyTo?: readonly string[];
  readonly to?: readonly string[];
  readonly cc?: readonly string[];
  readonly bcc?: readonly string[];
  readonly date?: string;
  readonly messageId?: string;
  readonly subject?: string;
}

export interface SesVerdict {
  readonly status: "PASS" | "FAIL" | "GRAY" | "PROCESSING_FAILED";
}

export interface SesReceivedNotification {
  readonly notificationType: "Received";
  readonly mail: {
    readonly timestamp: string;
    /** Envelope MAIL FROM; "" for the null reverse-path (bounces). */
    readonly source: string;
    readonly messageId: string;
    readonly destination: readonly string[];
    readonly headersTruncated: boolean;
    readonly headers: readonly SesHeader[];
    readonly commonHeaders: SesCommonHeaders;
  };
  readonly receipt: {
    readonly timestamp: string;
    readonly processingTimeMillis: number;
    /** Envelope RCPT TO addresses matched by the rule: the only trustworthy recipient list (Bcc, forwarding). */
    readonly recipients: readonly string[];
    readonly spamVerdict: SesVerdict;
    readonly virusVerdict: SesVerdict;
    readonly spfVerdict: SesVerdict;
    readonly dkimVerdict: SesVerdict;
    readonly dmarcVerdict: SesVerdict;
    readonly action: {
      readonly type: "S3";
      readonly topicArn: string;
      readonly bucketName: string;
      readonly objectKeyPrefix: string;
      readonly objectKey: string;
    };
  };
}

export interface SesNotificationInput {
  readonly messageId: string;
  readonly receivedAt: Date;
  readonly processingTimeMillis: number;
  readonly envelope: { readonly mailFrom: string; readonly rcptTo: readonly string[] };
  readonly raw: Uint8Array;
  readonly topicArn: string;
  readonly bucketName: string;
  /** e.g. `inbound/`; the object key is prefix + messageId, as SES writes it. */
  readonly objectKeyPrefix: string;
}

/** SES truncates the notification's header list past 10 KB and says so in `headersTruncated`. */
export const HEADERS_LIMIT_BYTES = 10 * 1024;

const GRAY: SesVerdict = { status: "GRAY" };

export function buildSesNotification(input: SesNotificationInput): SesReceivedNotification {
  const all = parseHeaderBlock(input.raw);
  const headers: SesHeader[] = [];
  let size = 0;
  let headersTruncated = false;
  for (const h of all) {
    size += h.name.length + h.value.length + 4;
    if (size > HEADERS_LIMIT_BYTES) {
      headersTruncated = true;
      break;
    }
    headers.push(h);
  }
  const timestamp = input.receivedAt.toISOString();
  const recipients = [...input.envelope.rcptTo];
  return {
    notificationType: "Received",
    mail: {
      timestamp,
      source: input.envelope.mailFrom,
      messageId: input.messageId,
      destination: recipients,
      headersTruncated,
      headers,
      commonHeaders: commonHeaders(all),
    },
    receipt: {
      timestamp,
      processingTimeMillis: input.processingTimeMillis,
      recipients,
      spamVerdict: { status: "PASS" },
      virusVerdict: { status: "PASS" },
      // The local intake checks no SPF/DKIM/DMARC: GRAY says "not evaluated", and the gate ignores SES verdicts
      // anyway (G2 proves the sender itself).
      spfVerdict: GRAY,
      dkimVerdict: GRAY,
      dmarcVerdict: GRAY,
      action: {
        type: "S3",
        topicArn: input.topicArn,
        bucketName: input.bucketName,
        objectKeyPrefix: input.objectKeyPrefix,
        objectKey: input.objectKeyPrefix + input.messageId,
      },
    },
  };
}

/** An id in SES's style (lower-case alphanumerics, also the S3 object name): 40 characters, about 206 bits. */
export function newSesMessageId(random: (n: number) => Uint8Array = randomBytes): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let out = "";
  while (out.length < 40) {
    // 252 = 7 * 36: rejecting bytes >= 252 keeps every character equally likely.
    for (const b of random(40)) if (b < 252 && out.length < 40) out += alphabet[b % 36];
  }
  return out;
}

/** The unfolded header fields of a raw message, in order (RFC 5322 §2.2.3), decoded as UTF-8 (RFC 6532). */
export function parseHeaderBlock(raw: Uint8Array): SesHeader[] {
  const text = new TextDecoder("utf-8").decode(raw.subarray(0, headerEnd(raw)));
  const fields: SesHeader[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === "") continue;
    const last = fields.at(-1);
    if ((line.startsWith(" ") || line.startsWith("\t")) && last) {
      fields[fields.length - 1] = { name: last.name, value: last.value + line };
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    fields.push({ name: line.slice(0, colon).trimEnd(), value: line.slice(colon + 1).trim() });
  }
  return fields;
}

/** Offset of the empty line ending the header section (CRLF CRLF, or bare LF LF), or the whole input. */
function headerEnd(raw: Uint8Array): number {
  for (let i = 0; i < raw.length - 1; i++) {
    if (raw[i] !== 0x0a) continue;
    if (raw[i + 1] === 0x0a) return i;
    if (raw[i + 1] === 0x0d && raw[i + 2] === 0x0a) return i;
  }
  return raw.length;
}

function commonHeaders(fields: readonly SesHeader[]): SesCommonHeaders {
  const values = (name: string): string[] =>
    fields.filter((f) => f.name.toLowerCase() === name).map((f) => f.value);
  const first = (name: string): string | undefined => values(name)[0];
  const list = (name: string): string[] | undefined => {
    const v = values(name);
    return v.length ? v.flatMap(splitAddressList) : undefined;
  };
  const out: Record<string, string | string[]> = {};
  const put = (key: keyof SesCommonHeaders, v: string | string[] | undefined) => {
    if (v !== undefined) out[key] = v;
  };
  put("returnPath", first("return-path"));
  put("from", list("from"));
  put("sender", list("sender"));
  put("replyTo", list("reply-to"));
  put("to", list("to"));
  put("cc", list("cc"));
  put("bcc", list("bcc"));
  put("date", first("date"));
  put("messageId", first("message-id"));
  put("subject", first("subject"));
  return out as SesCommonHeaders;
}

/** Split an address list on commas outside quotes, angle brackets and comments. Display only, never trusted. */
export function splitAddressList(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (quoted && c === "\\") {
      current += c + (value[i + 1] ?? "");
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "<" || c === "(")) depth++;
    else if (!quoted && (c === ">" || c === ")")) depth = Math.max(0, depth - 1);
    else if (!quoted && depth === 0 && c === ",") {
      if (current.trim()) parts.push(current.trim());
      current = "";
      continue;
    }
    current += c;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}
