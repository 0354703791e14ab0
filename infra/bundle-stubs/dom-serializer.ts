import { unreachable } from "./unreachable.ts";

// html-to-text renders raw HTML back out with dom-serializer only for its `blockHtml` / `inlineHtml` formats, and
// domutils (re-exported by htmlparser2) only in getOuterHTML / getInnerHTML. Verify's fresh-text reading
// (shared/mail/fresh-text-html.ts) selects neither format and calls neither function; dom-serializer and its own
// copy of `entities` are ~80 KB of the verify bundle.
export function render(): never {
  return unreachable(
    "dom-serializer.render",
    "fresh-text-html uses no blockHtml/inlineHtml format and no getOuterHTML",
  );
}

export default render;
