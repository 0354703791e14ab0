/**
 * The normalisation every piece of untrusted text goes through before a model sees it (G8), and that the quote
 * check (G15) reuses so a quote is compared against exactly what was shown.
 *
 * - Line breaks: CRLF, CR, LF, VT, FF, NEL (U+0085), LS (U+2028), PS (U+2029) all become LF, so a fence prefix
 *   is written in front of every line a model or terminal could render as a new line.
 * - Invisible characters are removed: zero-width (U+200B-U+200D, U+2060-U+2064, U+FEFF, U+180E), soft hyphen,
 *   variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF, Mongolian U+180B-U+180F) and Unicode tags (U+E0000-U+E007F). They render as
 *   nothing, yet models read them: "ASCII smuggling" hides whole instructions in tag characters.
 * - Bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the remaining C0/C1 controls (tab
 *   excepted) become U+FFFD: visible, so reordered or terminal-control text is shown as tampered, not obeyed.
 * - Lone surrogates become U+FFFD.
 */

const LINE_BREAK = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/g;
const INVISIBLE =
  /[\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff\u{e0000}-\u{e007f}]|\p{Variation_Selector}/gu;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export const REPLACEMENT = "\ufffd";

export function normaliseUntrusted(text: string): string {
  return text.toWellFormed().replace(LINE_BREAK, "\n").replace(INVISIBLE, "").replace(CONTROL, REPLACEMENT);
}

/** Normalised lines; an empty string is one empty line. */
export function untrustedLines(text: string): string[] {
  return normaliseUntrusted(text).split("\n");
}

/** One line of text (a filename, a display name): line breaks become spaces. */
export function untrustedLine(text: string): string {
  return normaliseUntrusted(text).replaceAll("\n", " ");
}
