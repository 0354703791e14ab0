import { describe, expect, it } from "vitest";
import { freshText, MAX_INPUT_CHARS } from "../../../shared/mail/fresh-text.ts";
import { MAX_HTML_TAGS } from "../../../shared/mail/fresh-text-html.ts";
import { freshTextHtml, freshTextLines, freshTextLongLines } from "../../helpers/hostile-inputs.ts";

/**
 * Bounded work (G14): input is capped at MAX_INPUT_CHARS per part, and hostile shapes of up to 100k lines or one
 * 1 MB line finish (no regex that backtracks, no quadratic look-ahead; test/helpers/hostile-inputs.ts).
 */

describe("input cap", () => {
  it("ignores plain text past MAX_INPUT_CHARS", () => {
    const text = `${"x".repeat(MAX_INPUT_CHARS)}\nAPPROVE K7Q2M9XT4Z`;
    expect(freshText({ text, html: null }).text).not.toContain("APPROVE");
    expect(
      freshText({ text: `APPROVE K7Q2M9XT4Z\n${"x".repeat(MAX_INPUT_CHARS)}`, html: null }).text,
    ).toContain("APPROVE K7Q2M9XT4Z");
  });

  it("judges whether a part has content within the cap only", () => {
    const text = `${" ".repeat(MAX_INPUT_CHARS)}APPROVE K7Q2M9XT4Z`;
    expect(freshText({ text, html: null })).toEqual({ text: "", source: "none" });
  });

  it("ignores HTML past MAX_INPUT_CHARS, even when the markup renders to almost no text", () => {
    const html = `<p>x${"<b></b>".repeat(MAX_INPUT_CHARS / 7)}</p><p>APPROVE K7Q2M9XT4Z</p>`;
    expect(freshText({ text: null, html }).text).not.toContain("APPROVE");
  });

  it("ignores HTML from its MAX_HTML_TAGS-th tag on, well inside MAX_INPUT_CHARS", () => {
    // each `<b></b>` is two tags; `<p>` is the first
    const opening = (tags: number) => `<p>x${"<b></b>".repeat((tags - 1) / 2)}`;
    const html = (tags: number) => `${opening(tags)}APPROVE K7Q2M9XT4Z</p>`;
    expect(html(MAX_HTML_TAGS - 1).length).toBeLessThan(MAX_INPUT_CHARS / 10);
    expect(freshText({ text: null, html: html(MAX_HTML_TAGS - 1) }).text).toContain("APPROVE K7Q2M9XT4Z");
    // the `<i>` is the MAX_HTML_TAGS-th tag: the document ends before it
    expect(
      freshText({ text: null, html: `${opening(MAX_HTML_TAGS - 1)}<i>APPROVE K7Q2M9XT4Z</i>` }).text,
    ).toBe("x");
  });
});

describe("hostile sizes", () => {
  // Each finishes, within the input cap: linear code takes milliseconds here, a quadratic or backtracking path
  // takes minutes and trips the test timeout. The times themselves are `npm run bench:bounds`'s.
  const bounded = (mail: { text: string | null; html: string | null }, source: string) => {
    const result = freshText(mail);
    expect(result.text.length).toBeLessThanOrEqual(MAX_INPUT_CHARS);
    expect([source, "none"]).toContain(result.source);
  };

  it.each(freshTextLines)("100k lines: %s", (_name, text) => bounded({ text, html: null }, "text"));
  it.each(freshTextLongLines)("1 MB single line: %s", (_name, text) => bounded({ text, html: null }, "text"));
  it.each(freshTextHtml)("1 MB of HTML: %s", (_name, html) => bounded({ text: null, html }, "html"));
});
