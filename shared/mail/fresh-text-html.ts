import type { HTMLElement, Node } from "node-html-parser";
import { htmlLibraries } from "../net/index.ts";

/**
 * The HTML part of a reply cut before its first reply/quote container, as text (G14). Everything from that
 * container onward in document order is removed (the container, its later siblings, and the later siblings of
 * each ancestor), so a card the client pasted below is gone before any text exists. Parsing and conversion never
 * fetch or run anything: node-html-parser builds a tree, html-to-text renders it, neither loads resources.
 */

/** Nesting deeper than any mail client writes; such a document yields no fresh text (html-to-text recurses). */
export const MAX_HTML_DEPTH = 256;

/**
 * Markup read, in tags (`<` characters): the document is cut before its MAX_HTML_TAGS-th `<`. The two trees
 * (node-html-parser's, then html-to-text's) cost ~1.8 KB per tag, whatever the characters: 1 MiB of `<b></b>` in
 * an HTML-only mail took +267 MB, so the character cap alone (fresh-text.ts MAX_INPUT_CHARS) left memory to the
 * sender. A whole mail in the reply corpora holds at most 491 tags, and a reply's own words come
 * before its quote; a cut only drops the bottom of a mail, so a reply read short is asked again, never misread.
 */
export const MAX_HTML_TAGS = 4096;

/** `html` up to (not including) its MAX_HTML_TAGS-th `<`. */
function boundTags(html: string): string {
  let at = -1;
  for (let tags = 0; tags < MAX_HTML_TAGS; tags++) {
    at = html.indexOf("<", at + 1);
    if (at < 0) return html;
  }
  return html.slice(0, at);
}

/** Ids a client gives the block that holds (or opens) the quoted message; Outlook re-quoting adds `x_`. */
const QUOTE_IDS = new Set([
  "divrplyfwdmsg", // Outlook web / new Outlook: the From/Sent header block
  "appendonsend", // Outlook web: marker right before that block
  "mail-editor-reference-message-container", // Outlook for Mac / new Outlook
  "olk_src_body_section", // Outlook for Mac 2011
  "stopspelling", // Hotmail: <hr id="stopSpelling">
  "zwchr", // Zimbra: <hr id="zwchr">
]);

/** Classes of quote containers and attribution lines. */
const QUOTE_CLASSES = new Set([
  "gmail_quote", // Gmail
  "gmail_quote_container",
  "gmail_attr", // Gmail attribution line
  "moz-cite-prefix", // Thunderbird attribution line
  "moz-forward-container", // Thunderbird forward
  "yahoo_quoted", // Yahoo
  "outlookmessageheader", // Outlook 2003 header table
  "protonmail_quote", // Proton Mail
  "zmail_extra", // Zoho
  "zmail_extra_hr",
]);

function stripOutlookPrefix(name: string): string {
  let out = name.toLowerCase();
  while (out.startsWith("x_")) out = out.slice(2);
  return out;
}

function isQuoteContainer(el: HTMLElement): boolean {
  const tag = el.rawTagName.toLowerCase();
  // Apple Mail, iOS Mail, Gmail, Thunderbird, Yahoo and mail.ru wrap the quoted message in a blockquote.
  if (tag === "blockquote") return true;
  // Outlook web, Hotmail, Zimbra and AOL draw a rule above the quoted header; a rule is never part of a reply line.
  if (tag === "hr") return true;
  if (QUOTE_IDS.has(stripOutlookPrefix(el.id))) return true;
  for (const cls of el.classList.values()) if (QUOTE_CLASSES.has(stripOutlookPrefix(cls))) return true;
  // Outlook desktop (`border-top:solid #E1E1E1 1.0pt`, `#B5C4DF`) and Windows Mail (`border-top-style: solid`)
  // put the From/Sent block in a div with a top border.
  const style = (el.getAttribute("style") ?? "").toLowerCase();
  return style.includes("border-top") && style.includes("solid");
}

/** Remove `node` and everything after it in document order (the ancestors themselves stay). */
function cutFrom(node: Node): void {
  let current: Node = node;
  let keep = 0; // the marker itself goes; each ancestor stays and loses only what follows it
  while (current.parentNode) {
    const parent: HTMLElement = current.parentNode;
    const index = parent.childNodes.indexOf(current);
    if (index >= 0) parent.childNodes.splice(index + keep);
    keep = 1;
    current = parent;
  }
}

/** Depth-first walk in document order with an explicit stack (hostile nesting cannot exhaust the call stack). */
function cutAtFirstQuote(root: HTMLElement): "ok" | "too-deep" {
  const stack: { node: Node; depth: number }[] = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const entry = stack.pop();
    if (entry === undefined) break;
    const { node, depth } = entry;
    if (depth > MAX_HTML_DEPTH) return "too-deep";
    if (node.nodeType !== htmlLibraries().element) continue;
    const el = node as HTMLElement;
    if (el !== root && isQuoteContainer(el)) {
      cutFrom(el);
      return "ok";
    }
    for (let i = el.childNodes.length - 1; i >= 0; i--) {
      const child = el.childNodes[i];
      if (child) stack.push({ node: child, depth: depth + 1 });
    }
  }
  return "ok";
}

/**
 * `html` serialized again without its first quote container and what follows; null when the document is nested
 * beyond reason. node-html-parser's tree is unreachable once this returns, before html-to-text builds its own.
 */
function cutHtml(source: string): string | null {
  // parseNoneClosedTags keeps unclosed elements open instead of re-parenting their children afterwards, which is
  // quadratic in node-html-parser 9 (100k unclosed tags took minutes). Document order, all the cut relies on, is
  // the same either way; sloppy nesting that gets deeper than MAX_HTML_DEPTH yields no fresh text.
  const root = htmlLibraries().parse(source, { comment: false, parseNoneClosedTags: true });
  if (cutAtFirstQuote(root) === "too-deep") return null;
  return root.toString();
}

/** The text of `html` above its first quote container; empty when the document is nested beyond reason. */
export function htmlBeforeQuote(html: string): string {
  const cut = cutHtml(boundTags(html));
  if (cut === null) return "";
  return htmlLibraries().convert(cut, {
    wordwrap: false,
    selectors: [
      { selector: "img", format: "skip" },
      { selector: "a", options: { ignoreHref: true } },
    ],
  });
}
