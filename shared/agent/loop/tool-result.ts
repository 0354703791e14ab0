import { grouped, safeCutIndex } from "../../mail/index.ts";
import type { MediaBlock, ToolResultPart } from "../../model/index.ts";
import type { ToolResult } from "../../tool-framework/index.ts";

/**
 * The text of one tool result as the transcript keeps it and the model reads it: its JSON (data and
 * text), in bytes. The dispatcher refuses results over 256 KiB outright; this is the tighter bound on what enters the
 * transcript, which holds every result of every round and is sent whole to the model each round. 64 KiB is above
 * every built-in's own cut (web_fetch 20,000 characters, read_attachment 50,000 of plain text, read_email 48 KiB,
 * search_emails 64 KiB) so ordinary results pass untouched; an operator tool's (or a multi-byte page's) oversized
 * text is cut here, visibly, instead of growing the transcript. Images and PDFs are not text: they stay bounded by
 * the dispatcher's result cap (read_attachment hands out at most 180 KiB of them).
 */
export const MAX_RESULT_TEXT_BYTES = 64 * 1024;
/** A failure's message is a reason for the model to act on, never a payload. */
export const MAX_ERROR_DETAIL_CHARS = 2000;

/** Map a tool's result to what the model reads. Failures carry their stable reason so the model can react. */
export function toModelToolResult(callId: string, result: ToolResult): ToolResultPart {
  if (!result.ok) {
    return {
      toolCallId: callId,
      isError: true,
      content: {
        type: "json",
        value: { error: result.reason, message: clipString(String(result.detail), MAX_ERROR_DETAIL_CHARS) },
      },
    };
  }
  const attachments: MediaBlock[] = [];
  const texts: string[] = [];
  for (const c of result.content ?? []) {
    if (c.type === "text") texts.push(c.text);
    else if (c.type === "image") attachments.push({ type: "image", mediaType: c.mediaType, data: c.base64 });
    else
      attachments.push({
        type: "document",
        mediaType: c.mediaType,
        data: c.base64,
        name: c.name ?? "attachment",
      });
  }
  const value = texts.length > 0 ? { data: result.data, text: texts.join("\n") } : result.data;
  return {
    toolCallId: callId,
    isError: false,
    content: { type: "json", value: capResultText(value ?? null) },
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}

/**
 * A result's value within MAX_RESULT_TEXT_BYTES of JSON. Over it, the longest strings are cut first (to the longest
 * length that still fits, each with a note of how much is missing), keeping the result's shape; a result that is
 * too big even so (thousands of small fields) becomes a marked preview of its JSON.
 */
export function capResultText(value: unknown, maxBytes = MAX_RESULT_TEXT_BYTES): unknown {
  const size = jsonBytes(value);
  if (size <= maxBytes) return value;
  const longest = longestString(value);
  let lo = 0;
  let hi = longest;
  // The longest per-string length that fits: binary search, each probe one JSON.stringify of a bounded value.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBytes(clipStrings(value, mid)) <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  const clipped = clipStrings(value, lo);
  if (lo >= 200 && jsonBytes(clipped) <= maxBytes) return clipped;
  // Worst case 6 JSON bytes a character (`\u` escapes): the preview fits whatever it holds.
  const preview = clipString(JSON.stringify(value), Math.floor(maxBytes / 8));
  return { truncated: true, bytes: size, preview };
}

/** A string cut to `max` characters on a safe boundary, with a note saying how much is missing. */
function clipString(s: string, max: number): string {
  if (s.length <= max) return s;
  const end = safeCutIndex(s, max);
  return `${s.slice(0, end)}…[cut: ${grouped(s.length - end)} of ${grouped(s.length)} characters not shown]`;
}

function clipStrings(v: unknown, max: number): unknown {
  if (typeof v === "string") return clipString(v, max);
  if (Array.isArray(v)) return v.map((x) => clipStrings(x, max));
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clipStrings(x, max)]));
  return v;
}

function longestString(v: unknown): number {
  if (typeof v === "string") return v.length;
  if (Array.isArray(v)) return v.reduce((m: number, x) => Math.max(m, longestString(x)), 0);
  if (v !== null && typeof v === "object")
    return Object.values(v).reduce((m: number, x) => Math.max(m, longestString(x)), 0);
  return 0;
}

function jsonBytes(v: unknown): number {
  const s = JSON.stringify(v);
  return s === undefined ? 0 : Buffer.byteLength(s);
}
