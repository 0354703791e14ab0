// Lexer for the From value (RFC 5322 §3.2): atoms, quoted strings, specials and whitespace.
// Specials inside a quoted string are text, so structure is only ever read from these tokens.

export type Token =
  | { kind: "atom"; text: string }
  | { kind: "quoted"; text: string; raw: string }
  | { kind: "special"; text: string }
  | { kind: "space"; text: string };

// RFC 5322 atext, plus any non-ASCII character (RFC 6532 §3.2 UTF8-non-ascii)
const ATEXT = /[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\u{10ffff}]/u;
const SPECIALS = '()<>[]:;@\\,."';

/** Tokens of the value, or null for an unterminated quoted string. */
export function tokenize(value: string): Token[] | null {
  const tokens: Token[] = [];
  const chars = Array.from(value);
  let i = 0;
  while (i < chars.length) {
    const c = chars[i] as string;
    if (c === " " || c === "\t") {
      let j = i;
      while (chars[j] === " " || chars[j] === "\t") j++;
      tokens.push({ kind: "space", text: chars.slice(i, j).join("") });
      i = j;
    } else if (c === '"') {
      let text = "";
      let j = i + 1;
      for (; j < chars.length && chars[j] !== '"'; j++) {
        // quoted-pair: the backslash escapes the next character
        if (chars[j] === "\\") j++;
        if (j >= chars.length) return null;
        text += chars[j];
      }
      if (j >= chars.length) return null;
      tokens.push({ kind: "quoted", text, raw: chars.slice(i, j + 1).join("") });
      i = j + 1;
    } else if (SPECIALS.includes(c)) {
      tokens.push({ kind: "special", text: c });
      i++;
    } else if (ATEXT.test(c)) {
      let j = i;
      while (j < chars.length && ATEXT.test(chars[j] as string)) j++;
      tokens.push({ kind: "atom", text: chars.slice(i, j).join("") });
      i = j;
    } else {
      // only controls are left, and the caller has refused those; treat as a lone special
      tokens.push({ kind: "special", text: c });
      i++;
    }
  }
  return tokens;
}
