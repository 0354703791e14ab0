/**
 * Cutting untrusted text to a size a model (and the transcript in S3) can hold. A 10 MB mail body is
 * not shown whole: round 1 shows its start, and read_email hands out later slices on request. Offsets count UTF-16
 * code units of the stored body (what JavaScript's `length` counts), so they are stable across renderings: the
 * fence's normalisation (G8) changes what is shown, never where a slice starts.
 */

export interface TextCut {
  /** The slice shown: `text.slice(start, end)`. */
  readonly text: string;
  readonly start: number;
  /** Where the slice ends; the next slice starts here. Equal to `total` when nothing is left. */
  readonly end: number;
  /** Length of the whole text. */
  readonly total: number;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Move a cut index back so it does not split a surrogate pair (half of one would be shown as U+FFFD on both sides)
 * or a CRLF (the LF alone would open the next slice with a blank line). Never moves it to or before `floor`, so a
 * slice of at least two units always advances.
 */
export function safeCutIndex(text: string, index: number, floor = 0): number {
  if (index <= floor || index >= text.length) return Math.min(Math.max(index, floor), text.length);
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  if ((isHigh(before) && isLow(after)) || (before === 0x0d && after === 0x0a))
    return index - 1 > floor ? index - 1 : index + 1;
  return index;
}

/**
 * The slice of `text` from `offset` of at most `maxChars` units (one more only when a pair cannot otherwise be kept
 * whole), cut on a safe boundary. An offset inside a surrogate pair starts at the pair; past the end, the slice is
 * empty.
 */
export function cutText(text: string, offset: number, maxChars: number): TextCut {
  const total = text.length;
  let start = Math.min(Math.max(0, Math.trunc(offset)), total);
  if (start > 0 && start < total && isLow(text.charCodeAt(start)) && isHigh(text.charCodeAt(start - 1)))
    start -= 1;
  const want = start + Math.max(1, Math.trunc(maxChars));
  const end = want >= total ? total : safeCutIndex(text, want, start);
  return { text: text.slice(start, end), start, end, total };
}

/** 9876543 → "9,876,543": a count a model (and a person reading a trace) reads at a glance. */
export const grouped = (n: number): string => n.toLocaleString("en-US");

/**
 * How much mail text a model is shown (bounded memory; docs/agent-runtime.md, "Text caps"). A 10 MB body used to go
 * whole into the model request and twice into the transcript (fenced, and again as quote-check text); now round 1
 * shows the start of each body and read_email reads on.
 *
 * - The mail being answered: 64,000 characters, about 16k tokens of English. Nearly all real mail is far shorter
 *   (a long business mail is 5-20 KB), so only unusual mail is cut, and a cut one still leaves most of a 128k-token
 *   context for history, tool results and the answer.
 * - Each earlier message of the thread: 8,000 characters. History is context, not the question, and replies quote
 *   each other: ten of them (the most shown) are at most 80,000 characters together.
 *
 * Round 1 is then at most ~144,000 characters of mail text in the fence, and as much again in the quote-check text:
 * well under 1 MB of transcript for ASCII, whatever the mail's size.
 */
export const CURRENT_MAIL_CHARS = 64_000;
export const HISTORY_MAIL_CHARS = 8_000;
/** One read_email slice, before the byte budget below shrinks it for text that escapes or encodes to many bytes. */
export const READ_EMAIL_CHARS = 32_000;

/** The tool that reads on: named in every cut note, so a cut mail always says how to reach the rest. */
export const READ_EMAIL = "read_email";

const SAFE_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * The note written inside the fence after a cut body (a FenceNote: code-written, so a sender cannot forge one or
 * fake the end of their text). It says how much is missing and the exact call that reads on.
 */
export function cutNote(messageId: string, cut: TextCut): string {
  const hidden = cut.total - cut.end;
  const shown = cut.start > 0 ? `characters ${grouped(cut.start)}-${grouped(cut.end)} shown; ` : "";
  // Message ids are ours (time + hex); anything else is a corrupt record, and the note then names no id to call.
  const call = SAFE_ID.test(messageId)
    ? `call ${READ_EMAIL} with id=${JSON.stringify(messageId)} and offset=${cut.end}`
    : `the rest cannot be read`;
  return `[truncated: ${shown}${grouped(hidden)} of ${grouped(cut.total)} characters not shown; ${call}]`;
}

/** The start of a body as a model is shown it: at most `cap` characters, and the note when it was cut. */
export function shownBody(
  messageId: string,
  body: string,
  cap: number,
): { readonly text: string; readonly note?: string } {
  const cut = cutText(body, 0, cap);
  return cut.end < cut.total ? { text: cut.text, note: cutNote(messageId, cut) } : { text: cut.text };
}
