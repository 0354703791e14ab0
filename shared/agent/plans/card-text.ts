// Controls (Cc), format characters (Cf: bidi overrides, zero-width), line and paragraph separators
// (Zl, Zp): anything that could move text to a line of its own, or reorder what the approver sees.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** Model-written text, made to stay on the line it is printed on: each unsafe character becomes `\u{XXXX}`. */
export function cardText(text: string): string {
  return text.replace(
    UNSAFE,
    (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}}`,
  );
}
