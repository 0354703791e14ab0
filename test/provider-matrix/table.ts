// The provider tables of docs/gate.md, written from the corpus and the expected matrix (`npm run docs:gate`);
// test/unit/gate/provider-matrix.test.ts fails when the document's copy differs.

import { EXPECTED } from "./expected.ts";
import { headerNames, isListOnly, type ProviderShape, type Shape } from "./fixtures.ts";
import { type Cell, FLOW_TITLES, FLOWS } from "./flows.ts";

export const START = "<!-- provider-matrix:start -->";
export const END = "<!-- provider-matrix:end -->";

const THREADING = { signed: "signed", "own-message-id": "own Message-ID", none: "" };

/** Whether it joined the answered mail's thread, and by what; a `threadedBy` that joined nothing is shown too. */
function threading(c: Extract<Cell, { verdict: "accept" }>): string {
  if (c.joined) return `joined the thread (${THREADING[c.threadedBy]})`;
  return c.threadedBy === "none"
    ? "new thread"
    : `new thread (stored as threaded by ${THREADING[c.threadedBy]})`;
}

/**
 * A Markdown table padded as Biome formats docs (every cell to its column's width), so the written file is already
 * what `npm run check` expects.
 */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

export function cellText(c: Cell): string {
  switch (c.verdict) {
    case "accept":
      return `accept \`${c.addressing}\`, ${threading(c)}, reply-all → ${c.reaches.join(" + ")}`;
    case "refuse":
    case "drop":
      return `${c.verdict} \`${c.reason}\``;
    case "not-seen":
      return "shape not seen";
    case "n/a":
      return "—";
  }
}

/** Message-IDs and other `<…>` read as HTML or autolinks in Markdown: shown as code. */
const prose = (s: string) => s.replace(/<[^<>\s]+>/g, (m) => `\`${m}\``);

const signs = (s: Shape, field: string): string => {
  if (!("h" in s)) return "not seen";
  return headerNames(s.h).some((n) => n.toLowerCase() === field) ? "yes" : "no";
};

function signerRow(p: ProviderShape): string[] {
  if (isListOnly(p)) {
    const h = p.list.signer
      ? `list signs \`d=${p.list.signer.domain}\`: \`${p.list.signer.h}\``
      : "no list signature seen";
    return [p.provider, h, "—", "—", "—", "—", "—", prose(p.list.seen)];
  }
  const h = [p.fresh, p.reply]
    .map((s, i) => `${i === 0 ? "new" : "reply"}: ${"h" in s ? `\`${s.h}\`` : "not seen"}`)
    .join("<br>");
  const seen = [p.fresh, p.reply].map((s) => ("h" in s ? s.seen : `not seen: ${s.notSeen}`));
  return [
    p.provider,
    h,
    signs(p.fresh, "to"),
    signs(p.cc ?? p.fresh, "cc"),
    signs(p.fresh, "message-id"),
    signs(p.reply, "in-reply-to"),
    signs(p.reply, "references"),
    prose(seen.join("; reply: ")),
  ];
}

/** The block between the markers: the signers' shapes with provenance, then the provider × flow verdicts. */
export function providerTables(shapes: readonly ProviderShape[]): string {
  const lines = [
    START,
    "<!-- Written by `npm run docs:gate` from test/fixtures/provider-shapes and test/provider-matrix/expected.ts; edit those, not this. -->",
    "",
    ...markdownTable(
      ["signer", "`h=` as seen", "To", "Cc", "Message-ID", "In-Reply-To", "References", "where seen"],
      shapes.map(signerRow),
    ),
    "",
    "Each shape re-signed with a test key and sent through verify, for a default agent (`helpdesk@`) and, for list",
    "mail, an agent that sets `acceptListMail` (`test/unit/gate/provider-matrix.test.ts`). The reply answers the agent's",
    "earlier mail to the sender (SES's Message-ID, in a thread the sender started); reply-all is whom the outbound would",
    "write to with no outbound rules; a forward is the forwarder's own new mail; the auto-forward is mail signed for",
    "someone else whose rule re-delivers it, signature intact; the list is Mailman 3 unless the row is a list's:",
    "",
    ...markdownTable(
      ["sender", ...FLOWS.map((f) => FLOW_TITLES[f])],
      shapes.map((p) => {
        const row = EXPECTED[p.id];
        if (!row) throw new TypeError(`no expected row for ${p.id}`);
        return [p.provider, ...FLOWS.map((f) => cellText(row[f]))];
      }),
    ),
    END,
  ];
  return lines.join("\n");
}

/** `doc` with the text between the markers replaced by `block` (which carries the markers). */
export function withProviderTables(doc: string, block: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new TypeError(`docs/gate.md has no ${START} … ${END} block`);
  return doc.slice(0, start) + block + doc.slice(end + END.length);
}
