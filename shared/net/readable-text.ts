import { htmlLibraries } from "./html-libraries.ts";

export interface ReadableText {
  readonly title: string | null;
  readonly text: string;
}

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/**
 * A fetched body as text a model can read. HTML goes through html-to-text (a maintained converter: regexes over
 * HTML miss comments, CDATA, entities and script bodies); images are skipped because a `data:` URL in an `alt`
 * or `src` would spend the whole budget on base64.
 */
export function readableText(body: Uint8Array, mediaType: string, charset: string | null): ReadableText {
  const raw = decodeText(body, charset);
  if (!HTML_TYPES.has(mediaType)) return { title: null, text: raw };
  const { parse, convert } = htmlLibraries();
  const title = parse(raw).querySelector("title")?.text.trim() || null;
  const text = convert(raw, {
    wordwrap: false,
    selectors: [
      { selector: "img", format: "skip" },
      { selector: "a", options: { hideLinkSameAsText: true } },
    ],
  });
  return { title, text };
}

/** Bytes to text in the declared charset (TextDecoder's WHATWG labels), UTF-8 when absent or unknown. */
export function decodeText(body: Uint8Array, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    // An unknown charset label: UTF-8 with replacement characters beats refusing the page.
    return new TextDecoder("utf-8").decode(body);
  }
}

/** Cut `text` to `maxChars` with a marker the model cannot mistake for page content's end. */
export function truncateText(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  let kept = text.slice(0, maxChars);
  // Do not leave half a surrogate pair at the cut.
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return {
    text: `${kept}\n[… truncated: ${text.length - maxChars} more characters not shown]`,
    truncated: true,
  };
}
