// G14: a confirmation is a rule of position. Replies are generated in random scripts, with a
// header block whose labels are random words in random scripts (no list of languages can know them), the card and
// a colleague's `APPROVE <code>` quoted in random layouts (plain, `>`, Notes' run-together header, HTML divs,
// tables, blockquotes, bottom-posted). Nothing applies unless the first line the approver typed is the
// confirmation, with the quote-cutter on and with it switched off (the whole body read).

import fc from "fast-check";
import { convert } from "html-to-text";
import { describe, expect, it } from "vitest";
import { renderCard } from "../../../shared/agent/plans/confirm-card.ts";
import { formatCode, readConfirmation } from "../../../shared/mail/confirm-reading.ts";
import { freshText } from "../../../shared/mail/fresh-text.ts";

const CODE = "K7Q2M9XT4Z";

/** Letter ranges of scripts approvers write in: Latin, Latin-1, Greek, Cyrillic, Hebrew, Arabic, Devanagari, Thai, Hangul, CJK. */
const SCRIPTS: readonly (readonly [number, number])[] = [
  [0x61, 0x7a],
  [0xc0, 0xff],
  [0x3b1, 0x3c9],
  [0x430, 0x44f],
  [0x5d0, 0x5ea],
  [0x627, 0x64a],
  [0x905, 0x939],
  [0xe01, 0xe2e],
  [0xac00, 0xacff],
  [0x4e00, 0x4eff],
];

const word = fc
  .constantFrom(...SCRIPTS)
  .chain(([lo, hi]) =>
    fc
      .array(fc.integer({ min: lo, max: hi }), { minLength: 1, maxLength: 8 })
      .map((cps) => String.fromCodePoint(...cps)),
  );
const phrase = fc
  .tuple(
    fc.array(word, { minLength: 1, maxLength: 6 }),
    fc.constantFrom("", ".", "!", "?", ","),
    fc.constantFrom("", "\u200f", "\u200e"),
  )
  .map(([ws, end, mark]) => `${mark}${ws.join(" ")}${end}`);

/**
 * A line an approver may type that is not a confirmation line: a refusal, question or greeting in any script, or
 * the keyword and code inside other text. (A typed `>` line is a quote by definition, so none is generated.)
 */
const notConfirmation = fc.oneof(
  phrase,
  fc.constantFrom(
    `not APPROVE ${CODE}`,
    `"APPROVE ${CODE}"`,
    `APPROVE ${CODE}, but only half`,
    `| APPROVE | ${CODE} |`,
    "Cancel please.",
  ),
);

/** The confirmation as an approver may retype it: case, grouping. */
const confirmation = fc
  .tuple(
    fc.constantFrom("APPROVE", "approve", "Approve"),
    fc.constantFrom(CODE, formatCode(CODE), "k7q2-m9xt-4z"),
  )
  .map(([k, c]) => `${k} ${c}`);

/** A header block in an unknown language: random labels, each a word of some script, with a colon. */
const headerLines = fc.array(
  fc.tuple(word, fc.oneof(phrase, fc.constant("Jim Novák <jim@example.com>"))).map(([k, v]) => `${k}: ${v}`),
  { minLength: 2, maxLength: 5 },
);

const card = renderCard({
  agent: "shop@agents.example.net",
  code: CODE,
  ops: [{ callId: "c1", tool: "issue_refund", input: { order: "A-1002" }, summary: "Refund order A-1002" }],
  expiresAt: "2026-12-01T12:00:00.000Z",
});

/** What sits under the header: a colleague's approval (the line that must never count) and the card. */
const material = fc
  .array(fc.oneof(phrase, fc.constant(`APPROVE ${CODE}`)), { maxLength: 3 })
  .map((colleague) => [`APPROVE ${CODE}`, ...colleague, "", card].join("\n"));

const quote = (text: string) =>
  text
    .split("\n")
    .map((l) => `> ${l}`)
    .join("\n");
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const paragraphs = (text: string) =>
  text
    .split("\n")
    .map((l) => `<p>${esc(l)}</p>`)
    .join("");

interface Mail {
  readonly text: string | null;
  readonly html: string | null;
}
type Layout = (typed: readonly string[], header: readonly string[], below: string) => Mail;

/** Where clients put the approver's text, the header and what they quote. */
const LAYOUTS: Record<string, Layout> = {
  "plain header block": (t, h, b) => ({ text: [...t, "", ...h, "", b].join("\n"), html: null }),
  "header under a rule": (t, h, b) => ({
    text: [...t, "", "_".repeat(32), ...h, "", b].join("\n"),
    html: null,
  }),
  "`>` quote under an attribution": (t, h, b) => ({
    text: [...t, "", `${h[0]} <jim@example.com>:`, quote(b)].join("\n"),
    html: null,
  }),
  "Notes header run together": (t, h, b) => ({ text: [...t, "", h.join(""), "", b].join("\n"), html: null }),
  "HTML divs": (t, h, b) => ({
    text: null,
    html: `<div>${paragraphs(t.join("\n"))}</div><div>${h.map(esc).join("<br>")}</div><div>${paragraphs(b)}</div>`,
  }),
  "HTML header table": (t, h, b) => ({
    text: null,
    html: `${paragraphs(t.join("\n"))}<table><tr>${h.map((l) => `<td>${esc(l)}</td>`).join("")}</tr></table>${paragraphs(b)}`,
  }),
  "HTML blockquote": (t, h, b) => ({
    text: null,
    html: `${paragraphs(t.join("\n"))}<div>${esc(h[0] ?? "")}</div><blockquote>${paragraphs(b)}</blockquote>`,
  }),
};

/** The body with the quote-cutter switched off. */
const whole = (mail: Mail): string => mail.text ?? convert(mail.html ?? "", { wordwrap: false });
const read = (mail: Mail) => ({
  cut: readConfirmation(freshText(mail).text),
  alone: readConfirmation(whole(mail)),
});

describe("a confirmation is the first line the approver typed, whatever the language or layout (G14)", () => {
  it("a reply whose first typed line is not the confirmation never applies, cutter on or off", () => {
    fc.assert(
      fc.property(
        notConfirmation,
        fc.array(fc.oneof(notConfirmation, confirmation, fc.constant("")), { maxLength: 4 }),
        headerLines,
        material,
        fc.constantFrom(...Object.keys(LAYOUTS)),
        (first, rest, header, below, layout) => {
          const mail = (LAYOUTS[layout] as Layout)([first, ...rest], header, below);
          const { cut, alone } = read(mail);
          for (const kind of [cut.kind, alone.kind]) {
            expect(kind).not.toBe("approve");
            expect(kind).not.toBe("cancel");
          }
        },
      ),
    );
  });

  it("bottom-posted under the quote: nothing applies unless the first typed line is the confirmation", () => {
    fc.assert(
      fc.property(
        notConfirmation,
        fc.array(fc.oneof(notConfirmation, confirmation), { maxLength: 3 }),
        material,
        (first, rest, below) => {
          const mail = {
            text: ["On Tuesday Jim <jim@example.com> wrote:", quote(below), "", first, ...rest].join("\n"),
            html: null,
          };
          const { cut, alone } = read(mail);
          expect(cut.kind).not.toBe("approve");
          expect(alone.kind).not.toBe("approve");
        },
      ),
    );
  });

  it("the confirmation typed first applies, cutter on or off, whatever is quoted below (the property is not vacuous)", () => {
    fc.assert(
      fc.property(
        confirmation,
        fc.array(fc.oneof(phrase, fc.constant("")), { maxLength: 3 }),
        headerLines,
        material,
        fc.constantFrom(...Object.keys(LAYOUTS)),
        (first, rest, header, below, layout) => {
          const mail = (LAYOUTS[layout] as Layout)([first, ...rest], header, below);
          const { cut, alone } = read(mail);
          expect(cut).toEqual({ kind: "approve", code: CODE });
          expect(alone).toEqual({ kind: "approve", code: CODE });
        },
      ),
    );
  });
});
