import { html as honoHtml } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { normaliseUntrusted } from "../../shared/gate/unicode.ts";

/**
 * Every page is built with this tag: interpolated strings are HTML-escaped (`& < > " '`), only values already
 * built by this tag pass through. Nothing in the console builds markup by string concatenation.
 */
export type Html = HtmlEscapedString;

export const html = (strings: TemplateStringsArray, ...values: unknown[]): Html =>
  // No value is ever a Promise here, so Hono's helper returns synchronously.
  honoHtml(strings, ...values) as Html;

/**
 * Sender-written text (a subject, a body, a display name, a tool argument the model copied from mail): shown as
 * plain text only, escaped by the tag, inside a box that says so. Bidi and invisible characters are made visible
 * (U+FFFD) as the fence does for models (G8), so reordered text cannot disguise itself. Never a link, never HTML.
 */
export function untrusted(text: string, opts: { inline?: boolean; max?: number } = {}): Html {
  const max = opts.max ?? 200_000;
  const shown = normaliseUntrusted(text.length > max ? text.slice(0, max) : text);
  const cut = text.length > max ? html`<span class="note">(cut at ${max} characters)</span>` : "";
  if (opts.inline)
    return html`<span class="untrusted" title="sender-written, untrusted">${shown}</span>${cut}`;
  return html`<div class="untrusted-box"><div class="untrusted-label">sender-written text: untrusted, shown as plain text</div><pre class="untrusted">${shown}</pre>${cut}</div>`;
}

/** An address as G4 allows it on a refusal: address characters only, whatever the sender wrote. */
export function addressChars(address: string | null | undefined): string {
  return (address ?? "").replace(/[^A-Za-z0-9.@_+-]/g, "").slice(0, 254) || "unknown";
}

/** A path segment: ids and addresses go into links URL-encoded, never raw. */
export const seg = (s: string): string => encodeURIComponent(s);

export const time = (iso: string | null | undefined): Html =>
  iso ? html`<time datetime="${iso}">${iso.replace("T", " ").slice(0, 19)}</time>` : html`-`;

export const bytes = (n: number): string =>
  n < 1024
    ? `${n} B`
    : n < 1024 * 1024
      ? `${(n / 1024).toFixed(1)} KB`
      : `${(n / 1024 / 1024).toFixed(1)} MB`;

/** Pager: a link to the next page when there is one (cursors are opaque, URL-encoded). */
export function pager(
  base: string,
  next: string | null,
  extra: Record<string, string> = {},
  label = "Older",
): Html {
  if (!next) return html``;
  const q = new URLSearchParams({ ...extra, cursor: next });
  return html`<p class="pager"><a href="${`${base}?${q.toString()}`}">${label} &rarr;</a></p>`;
}
