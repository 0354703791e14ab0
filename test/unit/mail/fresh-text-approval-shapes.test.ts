import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshText } from "../../../shared/mail/fresh-text.ts";

/**
 * Approval reply shapes (test/fixtures/approval-replies, G14): every real-client shape, with a sample card put
 * where the client puts the card, must give fresh text that holds the approver's own words and none of the card.
 * The card carries its code only as `code: K7Q2 M9XT 4Z` and an argument line that mentions APPROVE, to show that
 * nothing inside a card can reach the fresh text.
 */

type Outcome = "approve" | "cancel" | "none" | "ambiguous";
interface Shape {
  readonly name: string;
  readonly modelledOn: string;
  readonly client: string;
  readonly format: "text" | "html";
  readonly body: string;
  readonly expected: Outcome;
}

const dir = join(import.meta.dirname, "../../fixtures/approval-replies");
/** Shapes keyed by file name; the `name` field is the consumer's label and only its uniqueness is checked here. */
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
/** Card text that must never be fresh, however the client pasted it. */
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

/** What each approver typed (by file name), as it must appear in the fresh text (placeholders as in the bodies). */
const OWN_WORDS: Record<string, readonly string[]> = {
  "apple-mail-quoted": ["APPROVE {{CODE}}"],
  "approval-only-in-pasted-original": ["Agreed."],
  "approval-only-in-quoted-colleague-reply": ["Thanks Bob."],
  conflicting: ["APPROVE {{CODE}}", "CANCEL {{CODE}}"],
  "approve-with-trailing-words": ["Please APPROVE {{CODE}} now"],
  "cancel-above-unquoted-card": ["CANCEL {{CODE_GROUPED}}"],
  "cancel-please-above-unquoted-card": ["Cancel please."],
  "do-not-approve-above-unquoted-card": ["No! Do NOT approve this refund, it is fraud."],
  "forward-apple-mail": ["FYI, please look at this."],
  "forward-gmail": ["Bob, can you check this before I approve it?"],
  "forward-outlook-original-message": ["Please review."],
  "french-gmail": ["APPROVE {{CODE}}"],
  "french-outlook-cancel": ["CANCEL {{CODE}}", "Cordialement"],
  "german-gmail-wrapped-attribution": ["APPROVE {{CODE}}"],
  "german-iphone-card-pasted": ["CANCEL {{CODE}}"],
  "german-outlook": ["APPROVE {{CODE}}", "Mit freundlichen Grüßen"],
  "gmail-mobile-lowercase-grouped": ["approve {{CODE_GROUPED}}"],
  "gmail-web-quoted": ["APPROVE {{CODE}}"],
  "html-apple-mail": ["APPROVE {{CODE}}"],
  "html-gmail": ["APPROVE {{CODE}}"],
  "html-iphone-card-pasted": ["APPROVE {{CODE}}"],
  "html-outlook-desktop": ["APPROVE {{CODE}}"],
  "html-outlook-web-cancel-grouped": ["CANCEL {{CODE_GROUPED}}"],
  "html-thunderbird": ["APPROVE {{CODE}}"],
  "interleaved-reply": ["Checked against the invoice, amount is right.", "APPROVE {{CODE}}"],
  "iphone-mail-card-pasted": ["APPROVE {{CODE}}"],
  "iphone-mail-quoted": ["Yes, this one is fine.", "APPROVE {{CODE}}"],
  "mail-for-windows": ["APPROVE {{CODE}}", "Dana"],
  "outlook-android-cancel": ["CANCEL {{CODE}}"],
  "outlook-desktop-crlf": ["APPROVE {{CODE}}", "Dana"],
  "outlook-desktop-no-rule-grouped-code": ["APPROVE {{CODE_GROUPED}}"],
  "outlook-desktop-top-posted": ["APPROVE {{CODE}}", "Thanks,", "Dana"],
  "outlook-ios": ["APPROVE {{CODE}}"],
  "outlook-web-plain": ["Approve {{CODE}}"],
  "reply-all-colleague-outlook": ["Bob, is this legit?"],
  "reply-all-colleague-question": ["Bob, is this legit? I don't recognise this customer."],
  "signature-below-approve": ["APPROVE {{CODE}}"],
  "thunderbird-bottom-posted": ["APPROVE {{CODE}}"],
  "thunderbird-top-posted": ["APPROVE {{CODE}}"],
  "two-different-codes": ["APPROVE {{CODE}}", "APPROVE Q8W4N2LP7R"],
  "unicode-line-separators": ["APPROVE {{CODE}}"],
  "yahoo-android": ["APPROVE {{CODE}}"],
};

const LINE_BREAK = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/;

/**
 * Test oracle for the stated semantics (the decision itself lives in shared/agent/plan.ts): a confirmation line is
 * exactly `APPROVE <code>` / `CANCEL <code>`, keyword and code case-insensitive, spaces allowed inside the code.
 */
function oracle(fresh: string): Outcome {
  const found: { keyword: string; code: string }[] = [];
  for (const line of fresh.split(LINE_BREAK)) {
    const [keyword = "", ...rest] = line.trim().split(/\s+/);
    const code = rest.join("").toUpperCase();
    if (/^(approve|cancel)$/i.test(keyword) && /^[A-Z0-9]{10}$/.test(code)) {
      found.push({ keyword: keyword.toLowerCase(), code });
    }
  }
  if (found.length === 0) return "none";
  if (new Set(found.map((f) => f.code)).size > 1) return "ambiguous";
  const keywords = new Set(found.map((f) => f.keyword));
  if (keywords.size > 1) return "ambiguous";
  return keywords.has("approve") ? "approve" : "cancel";
}

describe("approval reply shapes", () => {
  it("holds at least 30 well-formed shapes, each with the approver's words listed", () => {
    expect(shapes.length).toBeGreaterThanOrEqual(30);
    expect(new Set(shapes.map(({ shape }) => shape.name)).size).toBe(shapes.length);
    for (const { file, shape: s } of shapes) {
      expect(s.name.length, file).toBeGreaterThan(0);
      expect(s.modelledOn.length, file).toBeGreaterThan(0);
      expect(["text", "html"]).toContain(s.format);
      expect(["approve", "cancel", "none", "ambiguous"]).toContain(s.expected);
      const placeholders = s.body.match(/\{\{CARD_(TEXT|QUOTED|HTML)\}\}/g) ?? [];
      expect(placeholders.length, file).toBe(1);
    }
    expect(Object.keys(OWN_WORDS).sort()).toEqual(shapes.map(({ file }) => file));
  });

  it("covers every outcome", () => {
    expect(new Set(shapes.map(({ shape }) => shape.expected))).toEqual(
      new Set(["approve", "cancel", "none", "ambiguous"]),
    );
  });

  it.each(shapes.map(({ file, shape }) => [file, shape] as const))("%s", (file, shape) => {
    const body = render(shape.body);
    const out = freshText(shape.format === "html" ? { text: null, html: body } : { text: body, html: null });
    expect(out.source).toBe(shape.format);
    const freshLines = new Set(out.text.split(LINE_BREAK).map((l) => l.trim()));
    for (const words of OWN_WORDS[file] ?? []) expect(freshLines).toContain(render(words));
    for (const marker of CARD_MARKERS) expect(out.text).not.toContain(marker);
    for (const line of CARD_LINES) {
      if (line.trim() !== "") expect(freshLines.has(line.trim()), `card line leaked: ${line}`).toBe(false);
    }
    expect(oracle(out.text)).toBe(shape.expected);
  });

  it("would count the card's code line if a client pasted the card with no separator at all", () => {
    // Why every shape has a separator: with none, nothing tells the card from the reply. The card itself still
    // holds no confirmation line, so such a reply cannot confirm anything by accident.
    const out = freshText({ text: `Looks fine\n\n${CARD_TEXT}`, html: null });
    expect(out.text).toContain(`code: ${CODE_GROUPED}`);
    expect(oracle(out.text)).toBe("none");
  });
});
