import { safeCutIndex } from "./text-cut.ts";
import { normaliseUntrusted } from "./unicode.ts";

/**
 * Outside text (a sender's, a model's, an MCP server's) as a terminal or a page shows it: the one way the CLI and
 * the console print it. The character rules are the fence's (unicode.ts, G8), so what the operator reads is what
 * the model read: C0 and C1 controls, ESC included, and bidi overrides become U+FFFD (visible, so `ESC]0;…BEL`
 * cannot retitle the terminal, `ESC[2J` cannot clear it, and reordered text is shown as tampered); zero-width,
 * tag and other invisible format characters are removed. On one line (a table cell, a tree line) every line break
 * is shown as `⏎`, so a value cannot fake a row; past `max` characters the text is cut with `…`.
 */
export interface PrintableOptions {
  /** Keep line breaks (as LF): a page's `<pre>`, a description block. Default: one line. */
  readonly multiline?: boolean;
  /** Characters kept before the `…`; default 500. */
  readonly max?: number;
}

// Format characters normaliseUntrusted leaves (U+206A-U+206F, U+FFF9-U+FFFB, ...) and the other default-ignorable
// code points (unassigned ones like U+2065, Hangul fillers): invisible on screen, so gone.
const FORMAT = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

// Printable ASCII (and LF on a multi-line block) needs no work: most of what a page or a table prints.
const PLAIN_LINE = /^[\x20-\x7e]*$/;
const PLAIN_BLOCK = /^[\x20-\x7e\n]*$/;

export function printable(text: string, opts: PrintableOptions = {}): string {
  const max = opts.max ?? 500;
  if (text.length <= max && (opts.multiline ? PLAIN_BLOCK : PLAIN_LINE).test(text)) return text;
  const clean = normaliseUntrusted(String(text)).replace(FORMAT, "");
  const shaped = opts.multiline ? clean : clean.replaceAll("\n", "⏎").replaceAll("\t", " ");
  if (shaped.length <= max) return shaped;
  return `${shaped.slice(0, safeCutIndex(shaped, max))}…`;
}

// What JSON.stringify leaves raw that a terminal obeys or hides: C1 controls (U+0080-U+009F, e.g. the 8-bit CSI
// U+009B), bidi controls, zero-width and other format characters. C0 (ESC included) JSON already escapes.
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * A value as JSON a terminal can show: the same JSON, with every character `printable` would hide or replace
 * written as a `\uXXXX` escape instead, so the data stays exact for a script and harmless on a screen.
 */
export function printableJson(value: unknown, indent = 2): string {
  const text = JSON.stringify(value, null, indent) ?? "null";
  return text.replace(JSON_UNSAFE, (c) =>
    Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join(
      "",
    ),
  );
}
