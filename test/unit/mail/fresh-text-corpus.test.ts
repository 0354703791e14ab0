import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import PostalMime from "postal-mime";
import { describe, expect, it } from "vitest";
import { freshText } from "../../../shared/mail/fresh-text.ts";

/**
 * Public reply-parser corpora (test/fixtures/replies/README.md) through freshText (G14). For each fixture, what
 * the upstream project asserts as the visible reply must be in our fresh text, and nothing from the quoted part
 * may be. Where our conservative rules cut more than upstream, the case is listed below with its reason; such a
 * case must still keep the quoted part out, must really disagree (so the entry goes when the rule changes), and
 * every line it keeps must be a line of the input (we only ever cut, never invent).
 */

interface Case {
  readonly file: string;
  readonly format: "text" | "eml-text" | "eml-html" | "html";
  readonly source: string;
  readonly fresh: readonly string[];
  readonly quoted: readonly string[];
  readonly quotedLines: readonly string[];
}
interface Template {
  readonly file: string;
  readonly placeholder: string;
  readonly source: string;
  readonly fresh: readonly string[];
  readonly quoted: readonly string[];
  readonly values: readonly string[];
}
interface Expected {
  readonly constants: Record<string, string>;
  readonly cases: readonly Case[];
  readonly templates: readonly Template[];
}

const root = join(import.meta.dirname, "../../fixtures/replies");
const expected = JSON.parse(readFileSync(join(root, "expected.json"), "utf8")) as Expected;

/** Justified disagreements with upstream, keyed `file|format`. */
const SKIP: Record<string, string> = {
  "crisp-email-reply-parser/email_not_a_signature.txt|text":
    "a 62-dash table rule is a separator for us (rule of 10+ `-`); upstream keeps the table below it",
  "willdurand-EmailReplyParser/email_23.txt|text":
    "a bare `Somebody wrote:` line is an attribution with no `>` block below, so the walk stops there",
  "mailgun-talon/standard_replies/sparrow.eml|eml-text":
    "talon's expected reply keeps the lines under the `-- ` delimiter; RFC 3676 §4.3 ends the reply there for us",
};

function collapse(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function resolve(s: string): string {
  return s.startsWith("$") ? (expected.constants[s.slice(1)] ?? s) : s;
}

async function load(c: Case): Promise<{ text: string | null; html: string | null }> {
  const raw = readFileSync(join(root, c.file));
  if (c.format === "text") return { text: raw.toString("utf8"), html: null };
  if (c.format === "html") return { text: null, html: raw.toString("utf8") };
  const mail = await PostalMime.parse(raw);
  if (c.format === "eml-text") return { text: mail.text ?? null, html: null };
  return { text: null, html: mail.html ?? null };
}

function assertNothingQuoted(out: string, quoted: readonly string[], quotedLines: readonly string[]): void {
  const flat = collapse(out);
  for (const q of quoted) expect(flat, `quoted text leaked: ${q}`).not.toContain(collapse(q));
  const lines = new Set(out.split("\n").map((l) => l.trim()));
  for (const q of quotedLines) expect(lines.has(q), `quoted line leaked: ${q}`).toBe(false);
}

describe("reply corpora through freshText", () => {
  it("holds every copied fixture", () => {
    const files = new Set<string>();
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(txt|eml|html)$/.test(name) && !name.startsWith("LICENSE"))
          files.add(relative(root, path));
      }
    };
    walk(root);
    const covered = new Set([...expected.cases.map((c) => c.file), ...expected.templates.map((t) => t.file)]);
    expect([...files].filter((f) => !covered.has(f))).toEqual([]);
    expect(files.size).toBe(140);
  });

  it("lists only real cases in the skip list", () => {
    const keys = new Set(expected.cases.map((c) => `${c.file}|${c.format}`));
    for (const key of Object.keys(SKIP)) expect(keys.has(key), key).toBe(true);
  });

  it.each(expected.cases.map((c) => [`${c.file} (${c.format})`, c] as const))("%s", async (_name, c) => {
    const mail = await load(c);
    const out = freshText(mail);
    expect(out.source).toBe(c.format === "html" || c.format === "eml-html" ? "html" : "text");
    assertNothingQuoted(out.text, c.quoted, c.quotedLines);
    const fresh = c.fresh.map(resolve);
    const reason = SKIP[`${c.file}|${c.format}`];
    if (reason === undefined) {
      for (const f of fresh) expect(collapse(out.text), `${c.source}`).toContain(collapse(f));
      return;
    }
    expect(
      fresh.every((f) => collapse(out.text).includes(collapse(f))),
      `stale skip: ${reason}`,
    ).toBe(false);
    const input = new Set((mail.text ?? "").split(/\r?\n/).map((l) => l.trim()));
    for (const line of out.text.split("\n")) expect(input.has(line.trim()), line).toBe(true);
  });

  it.each(expected.cases.filter((c) => c.format === "text").map((c) => [c.file, c] as const))(
    "%s gives the same fresh text with CRLF line ends",
    async (_name, c) => {
      const { text } = await load(c);
      const lf = freshText({ text, html: null }).text;
      const crlf = freshText({ text: (text ?? "").replace(/\r?\n/g, "\r\n"), html: null }).text;
      expect(crlf.replace(/\r\n/g, "\n")).toBe(lf);
    },
  );

  for (const t of expected.templates) {
    it.each(t.values.map((v) => [v] as const))(`${t.file} with %s`, (value) => {
      const text = readFileSync(join(root, t.file), "utf8").replace(t.placeholder, value);
      const out = freshText({ text, html: null }).text;
      for (const f of t.fresh) expect(out).toContain(f);
      assertNothingQuoted(out, t.quoted, []);
      assertNothingQuoted(out, [value], []);
    });
  }
});
