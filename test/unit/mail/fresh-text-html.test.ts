import { describe, expect, it } from "vitest";
import { freshText } from "../../../shared/mail/fresh-text.ts";
import { htmlBeforeQuote, MAX_HTML_DEPTH } from "../../../shared/mail/fresh-text-html.ts";

/**
 * HTML replies (G14): everything from the first reply/quote container onward in document order is cut before the
 * HTML becomes text. Each case checks the cut itself (htmlBeforeQuote), so it fails when its marker is removed even
 * where a text rule would also have stopped later, and the end result (freshText on an HTML-only mail).
 */

const CARD = "<p>Summary: refund EUR 120.00</p><p>code: K7Q2 M9XT 4Z</p>";
const REPLY = "<div>APPROVE K7Q2M9XT4Z</div>";
const AFTER = "<div>after the card</div>";

function expectCut(html: string): void {
  const cut = htmlBeforeQuote(html);
  expect(cut).toContain("APPROVE K7Q2M9XT4Z");
  for (const gone of ["Summary: refund", "code: K7Q2", "after the card", "----------"])
    expect(cut).not.toContain(gone);
  expect(freshText({ text: null, html })).toEqual({ text: "APPROVE K7Q2M9XT4Z", source: "html" });
}

describe("HTML quote containers", () => {
  it.each([
    ["blockquote (Apple Mail, iOS Mail)", '<blockquote type="cite">', "</blockquote>"],
    ["blockquote.gmail_quote (Gmail)", '<blockquote class="gmail_quote">', "</blockquote>"],
    ["div.gmail_quote (Gmail)", '<div class="gmail_quote gmail_quote_container">', "</div>"],
    ["div.gmail_attr (Gmail attribution)", '<div dir="ltr" class="gmail_attr">', "</div>"],
    ["div.x_gmail_quote (Gmail quoted again by Outlook)", '<div class="x_gmail_quote">', "</div>"],
    ["#divRplyFwdMsg (Outlook web)", '<div id="divRplyFwdMsg" dir="ltr">', "</div>"],
    ["#x_divRplyFwdMsg (Outlook web, re-quoted)", '<div id="x_divRplyFwdMsg">', "</div>"],
    ["#appendonsend (Outlook web marker)", '<div id="appendonsend"></div>', ""],
    ["hr#stopSpelling (Hotmail)", '<hr id="stopSpelling">', ""],
    ["hr#zwchr (Zimbra)", '<hr id="zwchr">', ""],
    ["hr (any rule)", '<hr style="display:inline-block;width:98%" tabindex="-1">', ""],
    ["div.moz-cite-prefix (Thunderbird attribution)", '<div class="moz-cite-prefix">', "</div>"],
    ["div.moz-forward-container (Thunderbird forward)", '<div class="moz-forward-container">', "</div>"],
    ["div.yahoo_quoted (Yahoo)", '<div class="yahoo_quoted" id="yahoo_quoted_1">', "</div>"],
    [
      "#mail-editor-reference-message-container (Outlook for Mac)",
      '<div id="mail-editor-reference-message-container">',
      "</div>",
    ],
    ["#OLK_SRC_BODY_SECTION (Outlook for Mac 2011)", '<span id="OLK_SRC_BODY_SECTION">', "</span>"],
    [
      "table.OutlookMessageHeader (Outlook 2003)",
      '<table class="OutlookMessageHeader"><tr><td>',
      "</td></tr></table>",
    ],
    ["div.protonmail_quote (Proton Mail)", '<div class="protonmail_quote">', "</div>"],
    ["div.zmail_extra (Zoho)", '<div class="zmail_extra">', "</div>"],
    [
      "border-top #E1E1E1 (Outlook desktop)",
      "<div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>",
      "</div>",
    ],
    [
      "border-top #B5C4DF (Outlook 2007/2010)",
      "<div style='border:none;border-top:solid #B5C4DF 1.0pt'>",
      "</div>",
    ],
    [
      "border-top-style (Windows Mail)",
      '<div style="border-top-color: rgb(229, 229, 229); border-top-style: solid;">',
      "</div>",
    ],
  ])("%s", (_name, open, close) => {
    expectCut(`<html><body>${REPLY}${open}${CARD}${close}${AFTER}</body></html>`);
  });

  it("cuts the later siblings of every ancestor of the marker, not only the marker", () => {
    const html = `<table><tr><td>${REPLY}<div><span><blockquote>q</blockquote>${CARD}</span>${CARD}</div></td><td>${CARD}</td></tr></table>${AFTER}`;
    expectCut(html);
  });

  it("cuts at the first container in document order", () => {
    expectCut(`${REPLY}<div class="gmail_attr">x</div>${CARD}<blockquote>${CARD}</blockquote>${AFTER}`);
  });

  it("keeps a document without any container whole, then applies the text rules", () => {
    const html = `${REPLY}<div>Sent from my iPhone</div>${CARD}`;
    expect(htmlBeforeQuote(html)).toContain("Summary: refund");
    expect(freshText({ text: null, html }).text).toBe("APPROVE K7Q2M9XT4Z");
  });

  it("renders no script, style, head or link targets", () => {
    const html = `<html><head><title>t</title><style>p{}</style></head><body><script>var APPROVE = 1;</script>${REPLY}<a href="https://x.example/APPROVE">link</a><img src="https://x.example/p.png" alt="APPROVE K7Q2M9XT4Z"></body></html>`;
    expect(freshText({ text: null, html }).text).toBe("APPROVE K7Q2M9XT4Z\nlink");
  });

  it(`yields no fresh text from HTML nested deeper than ${MAX_HTML_DEPTH}`, () => {
    const nest = (n: number): string => `${"<div>".repeat(n)}APPROVE K7Q2M9XT4Z${"</div>".repeat(n)}`;
    expect(freshText({ text: null, html: nest(MAX_HTML_DEPTH + 5) })).toEqual({ text: "", source: "html" });
    const fine = nest(MAX_HTML_DEPTH - 5);
    expect(freshText({ text: null, html: fine }).text).toBe("APPROVE K7Q2M9XT4Z");
  });
});
