// What an approver's reply says about a pending plan (G14), read only from the approver's own fresh
// words (shared/mail/fresh-text.ts): never from quoted or pasted text, and the card itself holds no
// line that would count (confirm-card.ts). Anything but one clear decision applies nothing.

/** Unambiguous upper-case letters and digits (no 0/O, 1/I/L). */
export const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export const CODE_LENGTH = 10;

export type ConfirmationReading =
  | { readonly kind: "approve"; readonly code: string }
  | { readonly kind: "cancel"; readonly code: string }
  /** Confirmation lines that disagree: APPROVE and CANCEL, or more than one code. */
  | {
      readonly kind: "ambiguous";
      readonly codes: readonly string[];
      readonly approve: boolean;
      readonly cancel: boolean;
    }
  | { readonly kind: "none" };

/** `K7Q2 M9XT 4Z`: how the card shows a code, so it has to be retyped after the keyword. */
export function formatCode(code: string): string {
  return `${code.slice(0, 4)} ${code.slice(4, 8)} ${code.slice(8)}`;
}

const CODE_CHAR = `[${CODE_ALPHABET}${CODE_ALPHABET.toLowerCase()}]`;
// The code's characters, optionally grouped by single spaces or hyphens as the card shows them; the
// approver's phone may capitalise only the first letter, so keyword and code are case-insensitive.
const CODE_TEXT = `${CODE_CHAR}(?:[ -]?${CODE_CHAR}){${CODE_LENGTH - 1}}`;
const CONFIRM_LINE = new RegExp(`^\\s*(approve|cancel)\\s+(${CODE_TEXT})\\s*$`, "i");
// Every Unicode line break (G8's list): a line the approver sees on its own is a line here.
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

const normalise = (code: string) => code.replace(/[ -]/g, "").toUpperCase();

// A line that starts like a decision: a confirmation line, or one the approver meant as one and mistyped
// ("APPROVE Q8W4N2LP7R" with a letter the alphabet lacks, "Cancel please.").
const DECISION_WORD = /^\s*(approve|cancel)\b/i;

/**
 * Read the approver's fresh text. APPROVE needs confirmation lines for exactly one code, all APPROVE: a CANCEL
 * beside it, a second code, or a decision-like line we cannot read beside it makes the reply ambiguous, and an
 * ambiguous reply applies nothing (we never pick the one line we understood out of several the approver wrote).
 */
export function readConfirmation(fresh: string): ConfirmationReading {
  const codes = new Set<string>();
  let approve = false;
  let cancel = false;
  let unreadable = false;
  for (const line of fresh.split(LINE_BREAK)) {
    const word = DECISION_WORD.exec(line);
    if (!word) continue;
    const isApprove = (word[1] as string).toLowerCase() === "approve";
    if (isApprove) approve = true;
    else cancel = true;
    const m = CONFIRM_LINE.exec(line);
    if (m) codes.add(normalise(m[2] as string));
    else unreadable = true;
  }
  const [code] = codes;
  if (code === undefined) return { kind: "none" };
  if (codes.size === 1 && approve !== cancel && !unreadable)
    return { kind: approve ? "approve" : "cancel", code };
  return { kind: "ambiguous", codes: [...codes], approve, cancel };
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
