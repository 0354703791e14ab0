/**
 * Hostile input shapes that must be handled in linear time (G2, G7, G14): no regex that backtracks, no quadratic
 * look-ahead. The unit tests run each one for its result (a quadratic or backtracking path takes minutes on these,
 * so it also trips the test timeout); `npm run bench:bounds` times them against the bounds below. Wall time is a
 * bench's business, not a test's: on a loaded 2-core machine a test asserting milliseconds fails for no reason.
 */

const MB = 1_000_000;
const CODE = "K7Q2M9XT4Z";

const repeatLines = (line: string, count: number) => Array.from({ length: count }, () => line).join("\n");

/** 100k-line plain-text shapes for freshText. */
export const freshTextLines: readonly (readonly [string, string])[] = [
  ["attribution + quote pairs", repeatLines("On Mon, 1 Jan 2024, A <a@b.example> wrote:\n> q", 50_000)],
  ["lines ending in a colon", repeatLines("a b c d e f:", 100_000)],
  ["address lines ending in a colon", repeatLines("x@y.example x@y.example:", 100_000)],
  ["opener lines", repeatLines("On on on on on", 100_000)],
  ["lone sender headers", repeatLines("From: a", 100_000)],
  ["header-like lines", repeatLines("to: a from b", 100_000)],
  ["long quoted lines with tails", repeatLines(`> ${"q".repeat(70)}\ntail`, 50_000)],
  ["blank lines", "\n".repeat(100_000)],
  ["mixed line breaks", "a\r\u2028\u0085\v\f".repeat(100_000)],
];

/** 1 MB single-line plain-text shapes for freshText. */
export const freshTextLongLines: readonly (readonly [string, string])[] = [
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
];

/** 1 MB HTML shapes for freshText. */
export const freshTextHtml: readonly (readonly [string, string])[] = [
  ["deep nesting", `${"<div>".repeat(100_000)}x${"</div>".repeat(100_000)}`],
  ["unclosed tags", "<div><b>".repeat(100_000)],
  ["stray closing tags under deep nesting", `${"<div>".repeat(70_000)}${"</span>".repeat(70_000)}`],
  ["unclosed table cells", "<table><tr><td>a".repeat(60_000)],
  ["flat paragraphs", "<p>APPROVE a</p>".repeat(60_000)],
  ["one long text", `<p>${"a ".repeat(MB / 2)}</p>`],
  ["many attributes", `<div ${'class="x" '.repeat(MB / 10)}>x</div>`],
  ["late quote", `${"<span>a</span>".repeat(60_000)}<blockquote>q</blockquote>`],
];

/** `depth` multipart containers nested inside each other around one text part. */
export function nestedMultiparts(depth: number): Buffer {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    open.push(`Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`);
    close.unshift(`\r\n--b${i}--\r\n`);
  }
  return Buffer.from(
    `From: a@x.org\r\n${open.join("")}Content-Type: text/plain\r\n\r\ndeep${close.join("")}`,
  );
}

/** One multipart holding `n` text parts (n + 1 entities). */
export function flatMultipart(n: number): Buffer {
  return Buffer.concat([
    Buffer.from('From: a@x.org\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n'),
    Buffer.from("--b\r\n\r\nx\r\n".repeat(n)),
    Buffer.from("--b--\r\n"),
  ]);
}

/** A `size`-byte message that is one header line. */
export function singleLineHeader(size: number): Buffer {
  const raw = Buffer.alloc(size, 0x61);
  raw.write("Subject: ", 0, "latin1");
  return raw;
}

/** A header whose value is a run of 200,000 bare CRs (readHeaderBlock). */
export const crRunHeader = (): Buffer => Buffer.from(`X: ${"\r".repeat(200_000)}y\r\n\r\n`, "latin1");

/** An approval reply with one 1.3 MB line of cancels and spaces after the confirmation (readConfirmation). */
export const longConfirmationLine = `APPROVE ${CODE}\n${"cancel ".repeat(100_000)}x${" ".repeat(200_000)}y`;
export const LONG_LINE_CODE = CODE;

/**
 * APPROVE first, then about 1 MiB the CANCEL scan must read to its end (cancel-word.ts): look-alike letters, single
 * letters set apart, a line per letter; each ends in a retraction, so every one reads as `ambiguous`.
 */
export const cancelScanShapes: readonly (readonly [string, string])[] = [
  ["look-alike letters", `APPROVE ${CODE}\n${"\u0421-\u0430.n \u0391\u039d ".repeat(100_000)}C A N C E L`],
  ["spaced ASCII letters", `APPROVE ${CODE}\n${"c a n; ".repeat(150_000)}C A N C E L`],
  [
    "full-width letters",
    `APPROVE ${CODE}\n${"\uff23\uff21".repeat(500_000)} \uff23\uff21\uff2e\uff23\uff25\uff2c`,
  ],
  ["a line per letter", `APPROVE ${CODE}\n${"c\n".repeat(500_000)}c-a-n-c-e-l`],
];

/** The bounds the bench holds each shape to (ms on a busy 2-core machine; linear code takes a small fraction). */
export const BOUNDS_MS = {
  freshText: 3000,
  nestedMultiparts: 500,
  flatMultipart: 500,
  singleLineHeader: 1000,
  crRunHeader: 1000,
  longConfirmationLine: 1000,
  cancelScan: 1000,
  corpusMail: 1000,
} as const;
