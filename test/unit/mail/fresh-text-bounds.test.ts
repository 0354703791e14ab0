import { describe, expect, it } from "vitest";
import { freshText, MAX_INPUT_CHARS } from "../../../shared/mail/fresh-text.ts";
import { MAX_HTML_TAGS } from "../../../shared/mail/fresh-text-html.ts";

/**
 * Bounded work (G14): input is capped at MAX_INPUT_CHARS per part, and hostile shapes of up to 100k lines or one
 * 1 MB line finish quickly (no regex that backtracks, no quadratic look-ahead). Time bounds are loose for a busy
 * 2-core machine; a quadratic or backtracking path takes minutes on these inputs, not seconds.
 */

const MB = 1_000_000;
const BOUND_MS = 3000;

function timed(mail: { text: string | null; html: string | null }): { text: string; ms: number } {
  const t0 = performance.now();
  const { text } = freshText(mail);
  return { text, ms: performance.now() - t0 };
}

function repeatLines(line: string, count: number): string {
  return Array.from({ length: count }, () => line).join("\n");
}

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

describe("hostile sizes finish fast", () => {
  it.each([
    ["attribution + quote pairs", repeatLines("On Mon, 1 Jan 2024, A <a@b.example> wrote:\n> q", 50_000)],
    ["lines ending in a colon", repeatLines("a b c d e f:", 100_000)],
    ["address lines ending in a colon", repeatLines("x@y.example x@y.example:", 100_000)],
    ["opener lines", repeatLines("On on on on on", 100_000)],
    ["lone sender headers", repeatLines("From: a", 100_000)],
    ["header-like lines", repeatLines("to: a from b", 100_000)],
    ["long quoted lines with tails", repeatLines(`> ${"q".repeat(70)}\ntail`, 50_000)],
    ["blank lines", "\n".repeat(100_000)],
    ["mixed line breaks", "a\r\u2028\u0085\v\f".repeat(100_000)],
  ])("100k lines: %s", (_name, text) => {
    expect(timed({ text, html: null }).ms).toBeLessThan(BOUND_MS);
  });

  it.each([
    ["plain", "a".repeat(MB)],
    ["spaces then text", `${" ".repeat(MB)}x`],
    ["sender header with inline keys", `From: ${"a to: ".repeat(MB / 6)}`],
    ["sender header with spaces", `From: ${"a ".repeat(MB / 2)}`],
    ["attribution-like with spaces", `On ${" ".repeat(MB)}wrote:`],
    ["many addresses then a colon", `${"x@y ".repeat(MB / 4)}:`],
    ["many verbs", `${"wrote ".repeat(MB / 6)}:`],
    ["dashes", "-".repeat(MB)],
    ["dashes with a letter", `--${"-".repeat(MB)}a--`],
    ["quote markers", ">".repeat(MB)],
    ["format characters", `${"\u200b".repeat(MB)}x`],
    ["colons", ":".repeat(MB)],
  ])("1 MB single line: %s", (_name, text) => {
    expect(timed({ text, html: null }).ms).toBeLessThan(BOUND_MS);
  });

  it.each([
    ["deep nesting", `${"<div>".repeat(100_000)}x${"</div>".repeat(100_000)}`],
    ["unclosed tags", "<div><b>".repeat(100_000)],
    ["stray closing tags under deep nesting", `${"<div>".repeat(70_000)}${"</span>".repeat(70_000)}`],
    ["unclosed table cells", "<table><tr><td>a".repeat(60_000)],
    ["flat paragraphs", "<p>APPROVE a</p>".repeat(60_000)],
    ["one long text", `<p>${"a ".repeat(MB / 2)}</p>`],
    ["many attributes", `<div ${'class="x" '.repeat(MB / 10)}>x</div>`],
    ["late quote", `${"<span>a</span>".repeat(60_000)}<blockquote>q</blockquote>`],
  ])("1 MB of HTML: %s", (_name, html) => {
    expect(timed({ text: null, html }).ms).toBeLessThan(BOUND_MS);
  });
});
