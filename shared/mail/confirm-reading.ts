// What an approver's reply says about a pending plan (G14). The rule is one of position, not of recognising
// quotes: a decision is the *first non-blank line* of the approver's fresh text, and only when that line is
// exactly the confirmation (keyword and the code, retyped). Outlook, Notes and a hundred other clients put a
// header block in the approver's language above the text they quote, and no list of labels knows them all: a
// refusal typed on top ("Ne, neschvaluji") over a colleague's quoted `APPROVE <code>` must never apply, whatever
// the quote-cutter (shared/mail/fresh-text.ts, the second line of defence) recognised. The card itself holds no
// line that would count (confirm-card.ts). Anything but one clear decision applies nothing.

import { mentionsCancel } from "./cancel-word.ts";
import { confirmNoticeLines } from "./notice.ts";

/** Unambiguous upper-case letters and digits (no 0/O, 1/I/L). */
export const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export const CODE_LENGTH = 10;

export type ConfirmationReading =
  | { readonly kind: "approve"; readonly code: string }
  | { readonly kind: "cancel"; readonly code: string }
  /**
   * The first line is a confirmation, but other lines disagree (a "cancel" anywhere, another code, a line we
   * cannot read), or a text part and an HTML part that read differently (confirm-reply.ts).
   */
  | {
      readonly kind: "ambiguous";
      readonly codes: readonly string[];
      readonly approve: boolean;
      readonly cancel: boolean;
    }
  /** Confirmation lines, but not as the first line: text above them (a greeting, a refusal, a header block). */
  | { readonly kind: "misplaced"; readonly codes: readonly string[] }
  | { readonly kind: "none" };

/** `K7Q2 M9XT 4Z`: how the card shows a code, so it has to be retyped after the keyword. */
export function formatCode(code: string): string {
  return `${code.slice(0, 4)} ${code.slice(4, 8)} ${code.slice(8)}`;
}

const CODE_CHAR = `[${CODE_ALPHABET}${CODE_ALPHABET.toLowerCase()}]`;
// The code's characters, optionally grouped by single spaces or hyphens as the card shows them; the
// approver's phone may capitalise only the first letter, so keyword and code are case-insensitive.
const CODE_TEXT = `${CODE_CHAR}(?:[ -]?${CODE_CHAR}){${CODE_LENGTH - 1}}`;
const CONFIRM_LINE = new RegExp(`^(approve|cancel)\\s+(${CODE_TEXT})$`, "i");
// Every Unicode line break (G8's list): a line the approver sees on its own is a line here.
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;
// Whitespace and invisible format characters (the RLM/LRM Hebrew and Arabic clients put at a line's start, BOM,
// zero-width space) around a line change nothing the approver sees.
const NOISE = /[\s\p{Cf}]/u;

/** `line` without leading and trailing whitespace or format characters (a loop: no regex backtracking). */
function bare(line: string): string {
  let start = 0;
  let end = line.length;
  while (start < end && NOISE.test(line[start] as string)) start++;
  while (end > start && NOISE.test(line[end - 1] as string)) end--;
  return line.slice(start, end);
}

const normalise = (code: string) => code.replace(/[ -]/g, "").toUpperCase();

// A line that starts like a decision: a confirmation line, or one the approver meant as one and mistyped
// ("APPROVE Q8W4N2LP7R" with a letter the alphabet lacks, "Cancel please.").
const DECISION_WORD = /^(approve|cancel)\b/i;
// CANCEL next to a code anywhere in a line ("No, CANCEL K7Q2M9XT4Z", "| CANCEL K7Q2 M9XT 4Z |"): a CANCEL line too.
const CANCEL_WITH_CODE = new RegExp(`\\bcancel[\\s:,.]*${CODE_TEXT}(?![A-Za-z0-9])`, "i");

/**
 * The confirm card's own lines that name CANCEL (shared/agent/plans/confirm-card.ts, pinned by
 * test/unit/mail/cancel-scan.test.ts), and the confirm notices' (notice.ts): an Outlook reply in a language the
 * quote-cutter has no labels for leaves the card unquoted in the fresh text, and its instructions are the
 * engine's words, not the approver's retraction. Matched whole, also under `>` quote marks (the card quoted, read
 * with the quote-cutter off); a line a client re-wrapped no longer matches and makes the reply ambiguous, which
 * asks the approver again.
 */
export const CARD_CANCEL_LINES: ReadonlySet<string> = new Set([
  "To discard it, make the first line the word CANCEL followed by the code.",
  "A reply whose first line is anything else runs nothing, and a line with CANCEL anywhere in it stops an approval.",
]);

const ENGINE_LINES: ReadonlySet<string> = new Set([...CARD_CANCEL_LINES, ...confirmNoticeLines()]);
const isEngineLine = (line: string) => ENGINE_LINES.has(line.replace(/^(?:>[ \t]*)+/, ""));

interface LineScan {
  /** Codes of every exact confirmation line. */
  readonly codes: Set<string>;
  readonly approve: boolean;
  readonly cancel: boolean;
  /** A line starting with APPROVE or CANCEL that is not an exact confirmation line. */
  readonly unreadable: boolean;
}

/** What the lines (already `bare`) hold that looks like a decision. */
function scanLines(lines: readonly string[]): LineScan {
  const codes = new Set<string>();
  let approve = false;
  let cancel = false;
  let unreadable = false;
  for (const line of lines) {
    if (CANCEL_WITH_CODE.test(line)) cancel = true;
    const word = DECISION_WORD.exec(line);
    if (!word) continue;
    if ((word[1] as string).toLowerCase() === "approve") approve = true;
    else cancel = true;
    const m = CONFIRM_LINE.exec(line);
    if (m) codes.add(normalise(m[2] as string));
    else unreadable = true;
  }
  return { codes, approve, cancel, unreadable };
}

/**
 * Read the approver's fresh text. Only its first non-blank line can be a decision, and only when it is exactly
 * `APPROVE <code>` or `CANCEL <code>`. APPROVE then needs every other decision-like line to agree: a "cancel"
 * anywhere (a line starting with CANCEL, CANCEL next to a code, or the word however written: cancel-word.ts),
 * another code, or a line starting with APPROVE or CANCEL we cannot read makes the reply ambiguous, and an
 * ambiguous reply applies nothing. CANCEL on the first line cancels unless another code is named. Confirmation
 * lines anywhere else are `misplaced`: nothing applies, and the approver is told to put the confirmation first.
 */
export function readConfirmation(fresh: string): ConfirmationReading {
  const lines = fresh.split(LINE_BREAK).map(bare);
  const scan = scanLines(lines);
  const first = lines.find((l) => l !== "");
  const decision = first === undefined ? null : CONFIRM_LINE.exec(first);
  if (!decision)
    return scan.codes.size > 0 ? { kind: "misplaced", codes: [...scan.codes] } : { kind: "none" };
  const code = normalise(decision[2] as string);
  // A "cancel" word anywhere, however typed (full-width, look-alike letters, spaced, inflected): the approver reads
  // a retraction there, so an APPROVE above it must not apply (cancel-word.ts). Read only for a reply whose first
  // line decides: other mail pays nothing for the Unicode work.
  const cancel = scan.cancel || lines.some((l) => !isEngineLine(l) && mentionsCancel(l));
  const ambiguous = { kind: "ambiguous", codes: [...scan.codes], approve: scan.approve, cancel } as const;
  if (scan.codes.size > 1) return ambiguous;
  if ((decision[1] as string).toLowerCase() === "cancel") return { kind: "cancel", code };
  if (cancel || scan.unreadable) return ambiguous;
  return { kind: "approve", code };
}

// `code: K7Q2 M9XT 4Z` as the card and its subject show it, anywhere (quoted text included): only used to find
// which plan a reply without a decision was about, so the approver can be told what to send.
const CARD_CODE = new RegExp(`\\bcode:?\\s+(${CODE_TEXT})(?![A-Za-z0-9])`, "gi");

/** Codes shown as a card shows them, in the order found, at most `max`. */
export function cardCodes(texts: readonly (string | null)[], max = 5): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    for (const m of text.slice(0, 1_000_000).matchAll(CARD_CODE)) {
      found.add(normalise(m[1] as string));
      if (found.size >= max) return [...found];
    }
  }
  return [...found];
}
