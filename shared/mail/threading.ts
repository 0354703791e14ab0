/**
 * Reply threading (G9): a reply's Subject, In-Reply-To and References are derived from the stored inbound
 * message, never from the model. Everything read here was written by the inbound sender, so it is sanitised
 * before it becomes one of our header values.
 */

/**
 * Reply prefixes we collapse into one `Re: `, so a long exchange never reads `Re: RE: AW: Re[2]: ...`.
 * Covered: Re / RE / re, counted forms `Re[2]:` / `Re(2):`, and the localised reply prefixes MUAs write
 * (German `AW`, Scandinavian `SV`, Finnish `VS`, Dutch `Antw`, Polish `Odp`, Portuguese `RES`, Turkish `Ynt`),
 * with an ASCII or full-width colon and French spacing (`Re :`). Forward prefixes (`Fwd:`, `FW:`, `WG:`) are
 * kept: a reply to a forward is `Re: Fwd: ...`, as Gmail and Outlook write it. Bare `R:` (Italian Outlook) is
 * not collapsed: too many real subjects start with one letter and a colon.
 */
const REPLY_PREFIX = /^\s*(?:re|aw|sv|vs|antw|odp|res|ynt)\s*(?:[[(]\d{1,4}[\])])?\s*[:\uff1a]\s*/i;

/** Used when the inbound message had no (or an empty) Subject: a reply still says what it is. */
export const NO_SUBJECT = "(no subject)";

/** Characters a header value must not carry: C0/C1 controls (a CR/LF would start a new header), U+2028/9. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_HEADER_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** RFC 5322 §2.1.1 caps a line at 998 octets; encoded-words fold, but nothing legitimate needs more. */
export const MAX_SUBJECT_CHARS = 900;

/** Untrusted header text made safe to put back into a header: no line breaks or controls, bounded. */
export function cleanHeaderText(value: string): string {
  return value.replace(UNSAFE_HEADER_CHARS, " ").replace(/\s+/g, " ").trim().slice(0, MAX_SUBJECT_CHARS);
}

/**
 * `Re: <subject>` exactly once. Idempotent: `replySubject(replySubject(s)) === replySubject(s)`, so a reply to
 * our own reply does not stack prefixes either.
 */
export function replySubject(inboundSubject: string | null | undefined): string {
  let rest = cleanHeaderText(inboundSubject ?? "");
  for (;;) {
    const next = rest.replace(REPLY_PREFIX, "");
    if (next === rest) break;
    rest = next;
  }
  rest = rest.trim();
  return `Re: ${rest === "" ? NO_SUBJECT : rest}`.slice(0, MAX_SUBJECT_CHARS);
}

/** The parent message's threading fields, as stored from its headers. */
export interface ThreadingSource {
  readonly headerMessageId: string | null;
  readonly references: readonly string[];
  readonly inReplyTo: string | null;
}

export interface ReplyThreading {
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
}

/** Most MUAs trim References around 20 ids; more adds nothing but header bytes. */
export const MAX_REFERENCES = 20;
/** A msg-id longer than this is garbage or an attack on header size; real ones are well under 100. */
const MAX_ID_LENGTH = 250;
/**
 * RFC 5322 §3.6.4 msg-id, narrowed: `<left@right>` of printable ASCII without `<`, `>` or whitespace. Ids that
 * do not match are dropped rather than repaired: they came from the sender and go back out in our header.
 */
const MSG_ID = /^<[\x21-\x3b\x3d\x3f-\x7e]+@[\x21-\x3b\x3d\x3f-\x7e]+>$/;

export function isMessageId(id: string): boolean {
  return id.length <= MAX_ID_LENGTH && MSG_ID.test(id);
}

/** Every `<...>` token of a header value that is a well-formed msg-id, in order. */
export function messageIdsIn(value: string | null | undefined): string[] {
  if (!value) return [];
  return (value.match(/<[^<>]*>/g) ?? []).filter(isMessageId);
}

/**
 * RFC 5322 §3.6.4: In-Reply-To is the parent's Message-ID; References is the parent's References (or, if it
 * has none, its In-Reply-To when that holds a single id) followed by the parent's Message-ID. Over the cap we
 * keep the first id (the thread root, which MUAs thread on) and the most recent ones.
 */
export function replyThreading(parent: ThreadingSource): ReplyThreading {
  const parentId =
    parent.headerMessageId && isMessageId(parent.headerMessageId.trim())
      ? parent.headerMessageId.trim()
      : null;
  let chain = parent.references.flatMap((r) => messageIdsIn(r));
  if (chain.length === 0) {
    const irt = messageIdsIn(parent.inReplyTo);
    if (irt.length === 1) chain = irt;
  }
  const seen = new Set<string>();
  const ids: string[] = [];
  for (const id of parentId ? [...chain.filter((c) => c !== parentId), parentId] : chain) {
    if (seen.has(id)) continue;
    seen.add(id);
    ids.push(id);
  }
  const references =
    ids.length > MAX_REFERENCES ? [ids[0] as string, ...ids.slice(-(MAX_REFERENCES - 1))] : ids;
  return { inReplyTo: parentId, references };
}
