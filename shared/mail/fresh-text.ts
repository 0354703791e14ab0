import { attributionAt } from "./fresh-text-attribution.ts";
import { isInlineHeaderBlock, startsHeaderBlock } from "./fresh-text-headers.ts";
import { htmlBeforeQuote } from "./fresh-text-html.ts";
import {
  isAppSignature,
  isForwardPhrase,
  isFramedBanner,
  isQuoted,
  isRule,
  isSignatureDelimiter,
  normaliseLine,
} from "./fresh-text-separators.ts";

/**
 * Fresh text (G14): only what the approver wrote in this reply may confirm a plan, never the card quoted or pasted
 * below it. Clients put the reply on top and the original underneath, `>`-quoted (Gmail, Apple Mail, Thunderbird)
 * or not (Outlook's From/Sent block, mobile apps after "Sent from my iPhone", forwards). The walk goes top-down and
 * stops at the first separator; when unsure it stops, because a wrongly cut reply only means the approver is asked
 * again, while a wrongly counted pasted line is the vulnerability.
 */

export interface FreshText {
  readonly text: string;
  readonly source: "text" | "html" | "none";
}

/**
 * Input cap, in UTF-16 code units (1 MiB of text), applied to each part before any work. A reply is read from the
 * top, so the cut only ever drops the bottom of a mail; work stays linear in the capped size.
 */
export const MAX_INPUT_CHARS = 1_048_576;

/** A quoted line at least this long was probably re-wrapped by the client; see `freshFromPlain`. */
const REFLOW_WIDTH = 60;

/** Every Unicode line break G8 names: CRLF, LF, VT, FF, CR, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. */
const LINE_BREAK = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/;

const NON_WHITESPACE = /\S/;

function hasContent(part: string | null): part is string {
  return part !== null && NON_WHITESPACE.test(part.slice(0, MAX_INPUT_CHARS));
}

/** A line after which nothing is fresh. */
function isStop(norms: readonly string[], at: number): boolean {
  const norm = norms[at] ?? "";
  return (
    isSignatureDelimiter(norm) ||
    isRule(norm) ||
    isFramedBanner(norm) ||
    isForwardPhrase(norm) ||
    isAppSignature(norm) ||
    isInlineHeaderBlock(norm) ||
    startsHeaderBlock(norms, at)
  );
}

/** The fresh lines of a plain-text body. */
export function freshFromPlain(text: string): string {
  const lines = text.slice(0, MAX_INPUT_CHARS).split(LINE_BREAK);
  const norms = lines.map(normaliseLine);
  const fresh: string[] = [];
  // True right after a long `>` line and over the unquoted lines glued to it: a client that re-wraps a quoted
  // paragraph leaves its tail unquoted ("> ...long line\ntail\n>"), and that tail is card text, not the reply.
  let quoteTail = false;
  let at = 0;
  while (at < lines.length) {
    const norm = norms[at] ?? "";
    if (norm === "") {
      quoteTail = false;
      fresh.push("");
      at++;
      continue;
    }
    if (isQuoted(norm)) {
      quoteTail = (lines[at] ?? "").trim().length >= REFLOW_WIDTH;
      at++;
      continue;
    }
    if (isStop(norms, at)) break;
    if (quoteTail) {
      at++;
      continue;
    }
    const attribution = attributionAt(norms, at);
    if (attribution > 0) {
      // `On ... wrote:` followed by a `>` block (Gmail, Apple Mail, Thunderbird): skip it and read on, so text
      // written under or between the quotes still counts. Followed by anything else, the original was pasted
      // unquoted below it: stop.
      let next = at + attribution;
      while (next < lines.length && norms[next] === "") next++;
      if (next < lines.length && isQuoted(norms[next] ?? "")) {
        at = next;
        continue;
      }
      break;
    }
    fresh.push(lines[at] ?? "");
    at++;
  }
  return fresh.join("\n").trim();
}

/** The fresh text of an HTML part: the HTML cut before its first quote container, as text, then read as plain. */
function freshFromHtml(html: string): string {
  return freshFromPlain(htmlBeforeQuote(html.slice(0, MAX_INPUT_CHARS)));
}

/** The text the sender wrote in this reply: above the quoted/forwarded part. */
export function freshText(mail: { readonly text: string | null; readonly html: string | null }): FreshText {
  if (hasContent(mail.text)) return { text: freshFromPlain(mail.text), source: "text" };
  if (hasContent(mail.html)) return { text: freshFromHtml(mail.html), source: "html" };
  return { text: "", source: "none" };
}

/**
 * The fresh text of the HTML part of a reply that also has a text part, or null when it has not both. A client
 * shows the approver the HTML and may send a text part that says something else: G14 reads both (confirm-reply.ts).
 */
export function freshHtmlBeside(mail: {
  readonly text: string | null;
  readonly html: string | null;
}): string | null {
  return hasContent(mail.text) && hasContent(mail.html) ? freshFromHtml(mail.html) : null;
}
