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
// A run of single letters each set apart by one space, dot or hyphen (`C A N C E L`, `c-a-n-c-e-l`): one word.
// Each letter must stand alone, so "a cancel" or "scan cell" never join into a new word.
const SPACED = /(?<![\p{L}\p{M}\p{N}])\p{L}(?:[ .-]\p{L}(?![\p{L}\p{M}\p{N}]))+/gu;
// "cancel" starting a word: cancel, cancels, cancelled, canceling, cancellation, non-cancellable.
const CANCEL_WORD = /(?<![\p{L}\p{M}\p{N}])cancel/u;

export function mentionsCancel(line: string): boolean {
  const folded = cancelSkeleton(line.replace(INVISIBLE, ""));
  return CANCEL_WORD.test(folded.replace(SPACED, (run) => run.replace(/[ .-]/g, "")));
}
