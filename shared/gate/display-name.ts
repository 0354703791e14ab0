// The display name, decoded for showing (RFC 5322 phrase, RFC 2047 encoded-words). It is
// untrusted text the sender chose: it never decides anything, it is only rendered inside the fence.

import type { Token } from "./address-tokens.ts";

// RFC 2047 §2 encoded-word, with the RFC 2231 §5 language suffix
const ENCODED_WORD = /^=\?([^?*\s]+)(?:\*[^?\s]*)?\?([bBqQ])\?([^?\s]*)\?=$/;

/**
 * Decoded display name, or null when the tokens are not a phrase. A phrase is atoms, quoted
 * strings and "." (obs-phrase, RFC 5322 §4.1: `John Q. Public` is common and harmless here).
 */
export function decodeDisplayName(tokens: Token[]): string | null {
  let out = "";
  let spaceBefore = false;
  let prevEncoded = false;
  for (const t of tokens) {
    if (t.kind === "space") {
      spaceBefore = true;
      continue;
    }
    if (t.kind === "special" && t.text !== ".") return null;
    const decoded = t.kind === "atom" ? decodeEncodedWord(t.text) : null;
    const encoded = decoded !== null;
    // RFC 2047 §6.2: whitespace between adjacent encoded-words is not displayed
    if (spaceBefore && out !== "" && !(prevEncoded && encoded)) out += " ";
    out += decoded ?? t.text;
    prevEncoded = encoded;
    spaceBefore = false;
  }
  return out;
}

/** The text of one encoded-word, or null when it is not one or cannot be decoded. */
export function decodeEncodedWord(word: string): string | null {
  const m = ENCODED_WORD.exec(word);
  if (m === null) return null;
  const [, charset = "", encoding = "", text = ""] = m;
  const bytes = encoding.toLowerCase() === "b" ? decodeBase64(text) : decodeQ(text);
  if (bytes === null) return null;
  try {
    return new TextDecoder(charset, { fatal: true }).decode(bytes);
  } catch {
    // unknown charset or malformed bytes: the word is shown as written
    return null;
  }
}

function decodeBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return null;
  return Buffer.from(text, "base64");
}

function decodeQ(text: string): Uint8Array | null {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "_") {
      bytes.push(0x20);
    } else if (c === "=") {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      const code = c.charCodeAt(0);
      // RFC 2047 §4.2: the rest of a Q-encoded word is printable ASCII
      if (code < 0x21 || code > 0x7e) return null;
      bytes.push(code);
    }
  }
  return Uint8Array.from(bytes);
}
