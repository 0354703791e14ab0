/**
 * Recursion and auto-reply guard (G5). Reads only headers that can make the verdict stricter: a sender who
 * forges them can get their own mail dropped, never admitted.
 */

export interface HeaderField {
  /** Lower-case field name. */
  readonly key: string;
  readonly value: string;
}

export type LoopReason = "hop-limit" | "auto-submitted" | "bounce" | "bulk-precedence";
export type LoopVerdict =
  | { readonly ok: true; readonly hop: number }
  | { readonly ok: false; readonly reason: LoopReason };

export const RECURSION_HEADER = "x-postern-recursion";

/** More digits than any allowed limit (config caps it at 1000) are treated as "at the limit" without parsing. */
const MAX_HOP_DIGITS = 6;

/**
 * The inbound hop count, or null if any X-Postern-Recursion field is not a plain decimal number. Several fields
 * count as the largest: only our own outbound writes this header, so an extra or garbled copy can come only from
 * a loop partner or an attacker, and neither may reset the counter (a loop would then run forever).
 */
export function inboundHop(headers: readonly HeaderField[]): number | null {
  let hop = 0;
  for (const h of headers) {
    if (h.key !== RECURSION_HEADER) continue;
    const value = h.value.trim();
    if (value.length > MAX_HOP_DIGITS || !/^[0-9]+$/.test(value)) return null;
    hop = Math.max(hop, Number(value));
  }
  return hop;
}

/** First token of a field value, lower-cased: `Auto-Submitted: auto-replied (vacation)` -> `auto-replied`. */
function keyword(value: string): string {
  const v = value.trim().toLowerCase();
  let end = 0;
  while (end < v.length && !" \t;(".includes(v.charAt(end))) end++;
  return v.slice(0, end);
}

function isNullReturnPath(path: string): boolean {
  const p = path.trim();
  return p === "" || p === "<>";
}

/** A bounce by envelope (RFC 5321 4.5.5 null reverse-path) or by shape (RFC 6522 multipart/report). */
function isBounce(headers: readonly HeaderField[], envelopeMailFrom: string | null): boolean {
  if (envelopeMailFrom !== null) {
    if (isNullReturnPath(envelopeMailFrom)) return true;
  } else {
    // Envelope unknown (e.g. `postern check` without one): the Return-Path SES writes from MAIL FROM.
    if (headers.some((h) => h.key === "return-path" && isNullReturnPath(h.value))) return true;
  }
  const contentType = headers.find((h) => h.key === "content-type");
  return contentType !== undefined && keyword(contentType.value) === "multipart/report";
}

/** RFC 3834 5: any Auto-Submitted value other than `no` (including garbage) marks automatic mail. */
function isAutoSubmitted(headers: readonly HeaderField[]): boolean {
  return headers.some((h) => h.key === "auto-submitted" && keyword(h.value) !== "no");
}

/** RFC 3834 2 (and common practice): list and bulk traffic must not trigger automatic responses. */
function isBulk(headers: readonly HeaderField[]): boolean {
  return headers.some((h) => h.key === "precedence" && ["bulk", "junk", "list"].includes(keyword(h.value)));
}

/**
 * `hop` is the inbound count (0 when absent): a reply stamps hop + 1. The hop limit applies even to agents that
 * opted in to automatic mail, because two such agents answering each other is exactly the loop it stops.
 */
export function loopGuard(
  headers: readonly HeaderField[],
  envelopeMailFrom: string | null,
  recursionLimit: number,
  acceptAutoSubmitted: boolean,
): LoopVerdict {
  const hop = inboundHop(headers);
  if (hop === null || hop >= recursionLimit) return { ok: false, reason: "hop-limit" };
  if (!acceptAutoSubmitted) {
    if (isBounce(headers, envelopeMailFrom)) return { ok: false, reason: "bounce" };
    if (isAutoSubmitted(headers)) return { ok: false, reason: "auto-submitted" };
    if (isBulk(headers)) return { ok: false, reason: "bulk-precedence" };
  }
  return { ok: true, hop };
}
