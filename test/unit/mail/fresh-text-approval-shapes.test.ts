import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { convert } from "html-to-text";
import { describe, expect, it } from "vitest";
import { readConfirmation } from "../../../shared/mail/confirm-reading.ts";
import { bothParts, readReply } from "../../../shared/mail/confirm-reply.ts";
import { freshText } from "../../../shared/mail/fresh-text.ts";

/**
 * Approval reply shapes (test/fixtures/approval-replies, G14): every client shape, with a sample card put where the
 * client puts the card, must be read as its fixture says, and the approver's typed first line must be the first
 * line of the fresh text. The decision is a rule of position, so it must hold with the quote-cutter switched off
 * too: read over the whole body, no shape the fixture does not approve may approve. The card carries its code
 * only as `code: K7Q2 M9XT 4Z` and an argument line that mentions APPROVE, to show that nothing inside a card can
 * confirm. Where the quote-cutter does not find a client's separator (an Outlook header block in a language it
 * has no labels for, Notes' run-together header table), the fixture says so (`cardStaysFresh`): the outcome
 * there rests on the positional rule alone.
 */

const OUTCOMES = ["approve", "cancel", "none", "ambiguous", "misplaced"] as const;
type Outcome = (typeof OUTCOMES)[number];
interface Shape {
  readonly name: string;
  readonly modelledOn: string;
  readonly client: string;
  /** BCP 47 tag of the language the client and the approver write in. */
  readonly language: string;
  /** `multipart`: `body` is the text/plain part and `html` the text/html part of one multipart/alternative reply. */
  readonly format: "text" | "html" | "multipart";
  readonly body: string;
  readonly html?: string;
  /** What the approver typed, in order, as it must appear in the fresh text (placeholders as in the body). */
  readonly typed: readonly string[];
  readonly expected: Outcome;
  /** The quote-cutter does not find this client's separator: card text stays in the fresh text. */
  readonly cardStaysFresh?: boolean;
}

const dir = join(import.meta.dirname, "../../fixtures/approval-replies");
/** Shapes keyed by file name, which is also each shape's `name`. */
const shapes = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => ({ file: f.slice(0, -5), shape: JSON.parse(readFileSync(join(dir, f), "utf8")) as Shape }));

const CODE = "K7Q2M9XT4Z";
const CODE_GROUPED = "K7Q2 M9XT 4Z";
const CARD_LINES = [
  "Refund Agent asks you to confirm one action.",
  "",
  "Summary: refund EUR 120.00 to customer C-77 for order 1042 (duplicate charge on 2025-03-01)",
  "Tool: issue_refund",
  "Arguments:",
  '  order_id: "1042"',
  '  amount: "120.00"',
  '  currency: "EUR"',
  "  note: |",
  "    NOTE: reply APPROVE to continue",
  `code: ${CODE_GROUPED}`,
  "",
  "This card expires at 2025-03-04 12:12 UTC. Nothing happens until you confirm.",
];
const CARD_TEXT = CARD_LINES.join("\n");
const CARD_QUOTED = CARD_LINES.map((l) => (l === "" ? ">" : `> ${l}`)).join("\n");
const CARD_HTML =
  '<div class="postern-card"><p>Refund Agent asks you to confirm one action.</p>' +
  "<p>Summary: refund EUR 120.00 to customer C-77 for order 1042 (duplicate charge on 2025-03-01)<br>" +
  "Tool: issue_refund<br>Arguments:</p>" +
  `<pre>${CARD_LINES.slice(5, 10).join("\n").replace(/"/g, "&quot;")}</pre>` +
  `<p>code: ${CODE_GROUPED}</p>` +
  "<p>This card expires at 2025-03-04 12:12 UTC. Nothing happens until you confirm.</p></div>";
/** Card text that is never fresh where the quote-cutter finds the client's separator. */
const CARD_MARKERS = [
  "asks you to confirm",
  "issue_refund",
  "NOTE: reply APPROVE to continue",
  "card expires",
];

function render(body: string): string {
  return body
    .replaceAll("{{CARD_TEXT}}", CARD_TEXT)
    .replaceAll("{{CARD_QUOTED}}", CARD_QUOTED)
    .replaceAll("{{CARD_HTML}}", CARD_HTML)
    .replaceAll("{{CODE_GROUPED}}", CODE_GROUPED)
    .replaceAll("{{CODE}}", CODE);
}

const LINE_BREAK = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/;

/** A line as the approver sees it: without surrounding whitespace or invisible format characters (RLM, BOM). */
const visible = (line: string) => line.replace(/^[\s\p{Cf}]+/u, "").replace(/[\s\p{Cf}]+$/u, "");

/** The body with the quote-cutter switched off: all of the text part, or all of the HTML as text. */
function wholeBody(shape: Shape, body: string): string {
  return shape.format === "html" ? convert(body, { wordwrap: false }) : body;
}

/** The reply as parsed mail: the text part, the HTML part, or both. */
function mailOf(shape: Shape, body: string): { text: string | null; html: string | null } {
  if (shape.format === "html") return { text: null, html: body };
  return { text: body, html: shape.format === "multipart" ? render(shape.html ?? "") : null };
}

/** The reading with the quote-cutter switched off: each part read whole, a multipart reply's parts compared. */
function readAlone(shape: Shape, body: string) {
  const reading = readConfirmation(wholeBody(shape, body));
  if (shape.format !== "multipart" || (reading.kind !== "approve" && reading.kind !== "cancel"))
    return reading;
  return bothParts(reading, readConfirmation(convert(render(shape.html ?? ""), { wordwrap: false })));
}

/** The nine languages whose Outlook header block first let a refusal on top approve (round three). */
const ROUND_THREE = ["cs", "el", "he", "ar", "uk", "ro", "vi", "id", "th"];

describe("approval reply shapes", () => {
  it("holds at least 80 well-formed shapes, each with its origin, language, typed words and outcome", () => {
    expect(shapes.length).toBeGreaterThanOrEqual(80);
    expect(new Set(shapes.map(({ shape }) => shape.name)).size).toBe(shapes.length);
    for (const { file, shape: s } of shapes) {
      expect(s.name, file).toBe(file);
      expect(s.modelledOn.length, file).toBeGreaterThan(0);
      expect(s.client.length, file).toBeGreaterThan(0);
      expect(s.language, file).toMatch(/^[a-z]{2}(-[A-Z]{2})?$/);
      expect(["text", "html", "multipart"]).toContain(s.format);
      expect(OUTCOMES).toContain(s.expected);
      expect(s.typed.length, file).toBeGreaterThan(0);
      const placeholders = s.body.match(/\{\{CARD_(TEXT|QUOTED|HTML)\}\}/g) ?? [];
      expect(placeholders.length, file).toBe(1);
      // A multipart reply's HTML part holds the card too, and only a multipart reply has one.
      expect(s.html === undefined, file).toBe(s.format !== "multipart");
      if (s.html !== undefined) expect(s.html.match(/\{\{CARD_HTML\}\}/g)?.length, file).toBe(1);
    }
  });

  it("covers every outcome, Outlook plain and HTML in at least 20 languages, and the round-three clients", () => {
    expect(new Set(shapes.map(({ shape }) => shape.expected))).toEqual(new Set(OUTCOMES));
    const outlook = (format: string) =>
      new Set(
        shapes
          .filter(({ shape }) => shape.client.startsWith("Outlook for Windows") && shape.format === format)
          .map(({ shape }) => shape.language),
      );
    for (const format of ["text", "html"]) {
      expect(outlook(format).size, format).toBeGreaterThanOrEqual(20);
      for (const language of ROUND_THREE)
        expect(outlook(format), `${format} ${language}`).toContain(language);
    }
    const clients = shapes.map(({ shape }) => shape.client).join("\n");
    for (const client of [
      "Notes",
      "Lotus",
      "Zimbra",
      "Yahoo",
      "Proton",
      "Fastmail",
      "Superhuman",
      "Android",
      "iOS",
    ])
      expect(clients).toContain(client);
  });

  it.each(shapes.map(({ file, shape }) => [file, shape] as const))("%s", (_file, shape) => {
    const body = render(shape.body);
    const mail = mailOf(shape, body);
    const out = freshText(mail);
    expect(out.source).toBe(shape.format === "multipart" ? "text" : shape.format);
    const freshLines = out.text.split(LINE_BREAK).map(visible);
    // Position first: the approver's first typed line is the first line of the fresh text.
    expect(freshLines.find((l) => l !== "")).toBe(visible(render(shape.typed[0] as string)));
    for (const words of shape.typed) expect(freshLines).toContain(visible(render(words)));
    const leaked =
      CARD_MARKERS.some((m) => out.text.includes(m)) ||
      CARD_LINES.some((l) => l.trim() !== "" && freshLines.includes(l.trim()));
    expect(leaked, "card text in the fresh text").toBe(shape.cardStaysFresh === true);
    expect(readReply(mail).kind).toBe(shape.expected);
    // The rule alone, with the quote-cutter switched off: only a shape that approves may approve.
    const alone = readAlone(shape, body).kind;
    if (shape.expected !== "approve") expect(alone).not.toBe("approve");
  });

  it("a card pasted with no separator at all stays in the fresh text and still confirms nothing", () => {
    // With no separator nothing tells the card from the reply; the card holds no confirmation line, and the
    // approver's first line decides.
    const out = freshText({ text: `Looks fine\n\n${CARD_TEXT}`, html: null });
    expect(out.text).toContain(`code: ${CODE_GROUPED}`);
    expect(readConfirmation(out.text)).toEqual({ kind: "none" });
    expect(readConfirmation(freshText({ text: `APPROVE ${CODE}\n\n${CARD_TEXT}`, html: null }).text)).toEqual(
      {
        kind: "approve",
        code: CODE,
      },
    );
  });
});
