import { cancelSkeleton } from "./cancel-confusables.ts";

/**
 * Whether a line of an approver's fresh text says "cancel" (G14), however it was typed: full-width from a Japanese
 * IME (`ＣＡＮＣＥＬ`), in look-alike letters (a Cyrillic `СANCEL`), spaced out (`C A N C E L`), or as a word in
 * a sentence in any inflection ("Order should be cancelled instead", "cancellation"). The approver reads all of
 * these as a retraction, so an APPROVE above them must not apply: a reader that sees less than the approver
 * wrote is the vulnerability, while a false match only asks the approver again.
 */

// Characters that render as nothing (format characters: zero-width, bidi marks, BOM; variation selectors; tags):
// `CAN\u200bCEL` is CANCEL on screen.
const INVISIBLE = /\p{Cf}|\p{Variation_Selector}/gu;
// A separator (one space, dot or hyphen) between two letters that each stand alone: removed, so a run of single
// letters becomes one word (`C A N C E L`, `c-a-n-c-e-l`), while "a cancel" or "scan cell" never join into a new
// word. A plain replace, no call per match: the scan stays linear and cheap on a 1 MiB line.
const SPACED = /(?<=(?<![\p{L}\p{M}\p{N}])\p{L})[ .-](?=\p{L}(?![\p{L}\p{M}\p{N}]))/gu;
// "cancel" starting a word: cancel, cancels, cancelled, canceling, cancellation, non-cancellable.
const CANCEL_WORD = /(?<![\p{L}\p{M}\p{N}])cancel/u;
// Printable ASCII: NFKC changes nothing, and the only look-alikes are `1`, `I` and `|` for the l.
const ASCII = /^[\x20-\x7e]*$/;
const ASCII_L = /[1I|]/g;
const ASCII_SPACED = /(?<=(?<![A-Za-z0-9])[A-Za-z])[ .-](?=[A-Za-z](?![A-Za-z0-9]))/g;
const ASCII_CANCEL = /(?<![a-z0-9])cancel/;

export function mentionsCancel(line: string): boolean {
  // Most lines of most replies: plain ASCII, read without Unicode work (a word for cancel starts with a c).
  if (ASCII.test(line)) {
    if (!/c/i.test(line)) return false;
    return ASCII_CANCEL.test(line.replace(ASCII_L, "l").toLowerCase().replace(ASCII_SPACED, ""));
  }
  return CANCEL_WORD.test(cancelSkeleton(line.replace(INVISIBLE, "")).replace(SPACED, ""));
}
