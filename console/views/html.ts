import { html as honoHtml } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { printable } from "../../shared/mail/index.ts";
import { absoluteTime, currentTimeView, relativeTime } from "./time-view.ts";

/**
 * Every page is built with this tag: interpolated strings are HTML-escaped (`& < > " '`), only values already
 * built by this tag pass through. Nothing in the console builds markup by string concatenation.
 *
 * Escaping stops markup, not what a page shows: a bidi override reorders the row it sits in (a sender's
 * `\u202e` turns "txt.exe" around), zero-width characters hide words, and control characters are nobody's text.
 * So every interpolated string also goes through `printable` (line breaks kept, nothing cut): the same rules as
 * the CLI and the fence, on every page, whoever wrote the value.
 */
export type Html = HtmlEscapedString;

const printableValue = (v: unknown): unknown =>
  typeof v === "string"
    ? printable(v, { multiline: true, max: Number.POSITIVE_INFINITY })
    : Array.isArray(v)
      ? v.map(printableValue)
      : v;

export const html = (strings: TemplateStringsArray, ...values: unknown[]): Html =>
  // No value is ever a Promise here, so Hono's helper returns synchronously.
  honoHtml(strings, ...values.map(printableValue)) as Html;

/**
 * Who wrote a text the console shows: the box says so, so nobody mistakes a model's words for a sender's, or their
 * own mail for a stranger's. Every author's text is shown the same safe way (plain text, escaped, invisible
 * characters made visible): only the label differs.
 */
export type Author =
  | { readonly kind: "sender"; readonly address?: string }
  | { readonly kind: "you"; readonly address: string }
  | { readonly kind: "agent"; readonly address?: string }
  | { readonly kind: "model" }
  | { readonly kind: "tool"; readonly name: string }
  | { readonly kind: "server"; readonly name: string; readonly what: string };

function authorLabel(by: Author): string {
  switch (by.kind) {
    case "sender":
      return `written by the sender${by.address ? ` ${by.address}` : ""}: untrusted, shown as plain text`;
    case "you":
      return `written by you (${by.address}), shown as plain text`;
    case "agent":
      return `written by the agent${by.address ? ` ${by.address}` : ""} (its model's words, sent as mail), shown as plain text`;
    case "model":
      return "written by the model (shaped by the mail it read): untrusted, shown as plain text";
    case "tool":
      return `returned by the tool ${by.name}, exactly as the model read it (fences included)`;
    case "server":
      return `${by.what}, written by the MCP server ${by.name}: its claims, untrusted, shown as plain text; no gate reads them`;
  }
}

/**
 * Text someone other than the engine wrote (a subject, a body, a display name, the model's words, a tool's
 * result): shown as plain text only, escaped by the tag, inside a box that says who wrote it. Bidi and invisible
 * characters are made visible (U+FFFD) as the fence does for models (G8), so reordered text cannot disguise
 * itself. Never a link, never HTML.
 */
export function untrusted(text: string, opts: { inline?: boolean; max?: number; by?: Author } = {}): Html {
  const max = opts.max ?? 200_000;
  const by = opts.by ?? { kind: "sender" };
  const shown = printable(text.length > max ? text.slice(0, max) : text, {
    multiline: true,
    max: Number.POSITIVE_INFINITY,
  });
  const cut = text.length > max ? html`<span class="note">(cut at ${max} characters)</span>` : "";
  const label = authorLabel(by);
  if (opts.inline) return html`<span class="untrusted by-${by.kind}" title="${label}">${shown}</span>${cut}`;
  return html`<div class="untrusted-box by-${by.kind}"><div class="untrusted-label">${label}</div><pre class="untrusted">${shown}</pre>${cut}</div>`;
}

/** An address as G4 allows it on a refusal: address characters only, whatever the sender wrote. */
export function addressChars(address: string | null | undefined): string {
  return (address ?? "").replace(/[^A-Za-z0-9.@_+-]/g, "").slice(0, 254) || "unknown";
}

/** A path segment: ids and addresses go into links URL-encoded, never raw. */
export const seg = (s: string): string => encodeURIComponent(s);

/** A time in the operator's zone, with how long ago it was; the UTC instant in `datetime` and the tooltip. */
export function time(iso: string | null | undefined): Html {
  if (!iso) return html`-`;
  const view = currentTimeView();
  const absolute = absoluteTime(iso, view?.zone ?? "UTC");
  const relative = view ? relativeTime(iso, view.now) : null;
  return html`<time datetime="${iso}" title="${iso}">${absolute}${relative ? html` <span class="ago">(${relative})</span>` : ""}</time>`;
}

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
