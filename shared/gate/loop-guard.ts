/**
 * Recursion and auto-reply guard (G5). Reads only headers that can make the verdict stricter: a sender who
 * forges them can get their own mail dropped, never admitted.
 */

import { type Fail, fail, type Ok } from "../result.ts";
import { readHeaderBlock } from "./header-block.ts";

export interface HeaderEntry {
  /** Lower-case field name. */
  readonly key: string;
  readonly value: string;
}

export type LoopReason =
  | "hop-limit"
  | "auto-submitted"
  | "bounce"
  | "auto-reply-marker"
  | "bulk-precedence"
  | "list-mail";
export type LoopResult = Ok<{ readonly hop: number }> | Fail<LoopReason>;

/** What an agent opted in to (admin item fields of the same names). Neither lifts the hop limit. */
export interface LoopGuardOptions {
  /** Bounces, RFC 3834 Auto-Submitted, the de-facto autoresponder markers, `Precedence: bulk/junk/list`. */
  readonly acceptAutoSubmitted: boolean;
  /** Mailing-list and bulk-sender mail (RFC 2369 / 2919 / 8058 list fields, `Precedence: list`). */
  readonly acceptListMail: boolean;
}

export const RECURSION_HEADER = "x-postern-recursion";

/** More digits than any allowed limit (config caps it at 1000) are treated as "at the limit" without parsing. */
const MAX_HOP_DIGITS = 6;

/**
 * The inbound hop count, or null if any X-Postern-Recursion field is not a plain decimal number. Several fields
 * count as the largest: only our own outbound writes this header, so an extra or garbled copy can come only from
 * a loop partner or an attacker, and neither may reset the counter (a loop would then run forever).
 */
export function inboundHop(headers: readonly HeaderEntry[]): number | null {
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
function isBounce(headers: readonly HeaderEntry[], envelopeMailFrom: string | null): boolean {
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
function isAutoSubmitted(headers: readonly HeaderEntry[]): boolean {
  return headers.some((h) => h.key === "auto-submitted" && keyword(h.value) !== "no");
}

/**
 * X-Auto-Response-Suppress ([MS-OXCMAIL] 2.1.3.2.20; the bits are PidTagAutoResponseSuppress, [MS-OXOMSG]
 * 2.2.1.77) is the sender asking automatic responders to stay silent. Our agent's answer is an automatic reply
 * (it carries `Auto-Submitted: auto-replied`): `All` and `AutoReply` ("auto-reply messages other than OOF") name
 * it outright, and a sender refusing even out-of-office notices (`OOF`) refuses it too. Only these documented
 * tokens leave it allowed: `None` (property value 0, "do not suppress any automatic replies") and the report bits
 * DR/NDR (transport delivery reports) and RN/NRN (read notifications), which the agent never sends. An empty
 * value or any other token is unreadable and counts as suppressing (fail closed).
 */
const ALLOWS_REPLIES = new Set(["none", "dr", "ndr", "rn", "nrn"]);

function suppressesReplies(value: string): boolean {
  const tokens = value
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((t) => t !== "");
  return tokens.length === 0 || tokens.some((t) => !ALLOWS_REPLIES.has(t));
}

/**
 * Autoresponders that never learned RFC 3834 (or write these beside it). A responder labelled only this way would
 * otherwise start a run, and its reply carries no X-Postern-Recursion, so the hop count restarts at 0 on every
 * turn and the loop is bounded only by the daily budget.
 */
function isAutoReplyMarker(headers: readonly HeaderEntry[]): boolean {
  return headers.some(
    (h) =>
      // `Precedence: auto_reply`: Precedence is a non-standard field (RFC 3834 3.1.8; 5 defines Auto-Submitted
      // as the label to write); `auto_reply` is written by cPanel's autoresponder and BoxTrapper.
      (h.key === "precedence" && keyword(h.value) === "auto_reply") ||
      // X-Autoreply (Gmail's vacation responder writes `yes`) and X-Autorespond (cPanel, BoxTrapper), as
      // catalogued in multi_mail's "Detecting autoresponders" and arp242.net/weblog/autoreply.html. No
      // specification defines a value, so the field's presence is the marker: any value, even empty, counts.
      h.key === "x-autoreply" ||
      h.key === "x-autorespond" ||
      // X-Auto-Response-Suppress ([MS-OXCMAIL] 2.1.3.2.20, Exchange and Outlook; many bulk senders copy it):
      // the sender asks automatic responders not to answer. Honoured per token, see ALLOWS_REPLIES.
      (h.key === "x-auto-response-suppress" && suppressesReplies(h.value)),
  );
}

/** RFC 3834 2 (and common practice): list and bulk traffic must not trigger automatic responses. */
function bulkPrecedence(headers: readonly HeaderEntry[]): "bulk" | "list" | null {
  let found: "bulk" | "list" | null = null;
  for (const h of headers) {
    if (h.key !== "precedence") continue;
    const k = keyword(h.value);
    if (k === "bulk" || k === "junk") return "bulk";
    if (k === "list") found = "list";
  }
  return found;
}

/**
 * Fields only list managers and bulk senders write into the copy they distribute; no mail client puts them on
 * mail a person writes to a person. List-Id (RFC 2919 3) and List-Unsubscribe (RFC 2369 3.2, with RFC 8058's
 * one-click List-Unsubscribe-Post) cover nearly all of it. The other RFC 2369 fields count too: List-Post (3.4)
 * is written on every post by list managers that predate List-Id, and an agent's answer to a list can reach
 * every subscriber. Presence is the marker, whatever the value (RFC 2369 3.4's `List-Post: NO` is still a list).
 */
const LIST_FIELDS = new Set([
  "list-id",
  "list-unsubscribe",
  "list-unsubscribe-post",
  "list-post",
  "list-help",
  "list-subscribe",
  "list-owner",
  "list-archive",
]);

function isListMail(headers: readonly HeaderEntry[]): boolean {
  return headers.some((h) => LIST_FIELDS.has(h.key));
}

/**
 * `hop` is the inbound count (0 when absent): a reply stamps hop + 1. The hop limit applies even to agents that
 * opted in to automatic or list mail, because two such agents answering each other is exactly the loop it stops.
 * An agent taking list mail also takes `Precedence: list`, which list managers write beside the list fields.
 */
export function loopGuard(
  headers: readonly HeaderEntry[],
  envelopeMailFrom: string | null,
  recursionLimit: number,
  opts: LoopGuardOptions,
): LoopResult {
  const hop = inboundHop(headers);
  if (hop === null || hop >= recursionLimit) return fail("hop-limit");
  if (!opts.acceptAutoSubmitted) {
    if (isBounce(headers, envelopeMailFrom)) return fail("bounce");
    if (isAutoSubmitted(headers)) return fail("auto-submitted");
    if (isAutoReplyMarker(headers)) return fail("auto-reply-marker");
    const precedence = bulkPrecedence(headers);
    if (precedence === "bulk" || (precedence === "list" && !opts.acceptListMail))
      return fail("bulk-precedence");
  }
  if (!opts.acceptListMail && isListMail(headers)) return fail("list-mail");
  return { ok: true, hop };
}

/** What the gate reads once, before any agent's loop guard: the fields, whether the mail is automatic, its hop. */
export interface LoopHeaders {
  readonly fields: readonly HeaderEntry[];
  /** Automatic mail to an agent that opted in to nothing: a refusal of it is never notified (G6). */
  readonly automatic: boolean;
  /** The inbound hop count: 0 when absent or unreadable. */
  readonly hop: number;
}

/**
 * Headers as we read them ourselves (not postal-mime): used by the loop guard before anything is parsed. An
 * unreadable block is treated as automatic mail (never notified) and refused by sender proof (header-malformed).
 */
export function readLoopHeaders(raw: Buffer, envelopeMailFrom: string | null): LoopHeaders {
  const block = readHeaderBlock(raw);
  const fields = block.ok ? block.fields.map((f) => ({ key: f.name, value: f.value })) : [];
  const automatic =
    !block.ok ||
    !loopGuard(fields, envelopeMailFrom, Number.MAX_SAFE_INTEGER, {
      acceptAutoSubmitted: false,
      acceptListMail: false,
    }).ok;
  return { fields, automatic, hop: block.ok ? (inboundHop(fields) ?? 0) : 0 };
}
