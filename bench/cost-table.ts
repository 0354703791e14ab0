/**
 * docs/deploy.md's cost tables, rendered from the synthesized template (bench/fixed-costs.ts) and what bench:cost
 * last measured (bench/cost-measured.json: the tick's run, the bytes a mail leaves, the per-mail bill). bench:cost
 * rewrites the block between the markers; test/infra/fixed-costs.test.ts fails when the docs and this drift.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { type CfnTemplate, type FixedCostOptions, fixedCosts } from "./fixed-costs.ts";

export interface MeasuredMonth {
  /** When bench:cost measured it (UTC date). */
  readonly measured: string;
  readonly config: string;
  readonly tick: FixedCostOptions["tick"];
  readonly storedKbPerMail: number;
  /** The measured bill of one accepted, answered mail, SES fees included, model excluded. */
  readonly perMailUsd: number;
}

export const MEASURED_FILE = "bench/cost-measured.json";
export const DOC_FILE = "docs/deploy.md";
export const BEGIN = "<!-- bench:cost tables (generated: npm run bench:cost) -->";
export const END = "<!-- /bench:cost tables -->";
export const VOLUMES = [0, 1_000, 100_000] as const;

const usd = (n: number) => n.toFixed(2);
const mails = (n: number) => n.toLocaleString("en-US");

function table(
  head: readonly string[],
  right: readonly boolean[],
  rows: readonly (readonly string[])[],
): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const cell = (s: string, i: number) => (right[i] ? s.padStart(widths[i] ?? 0) : s.padEnd(widths[i] ?? 0));
  const line = (r: readonly string[]) => `| ${r.map(cell).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (right[i] ? `${"-".repeat(w - 1)}:` : "-".repeat(w))).join(" | ")} |`;
  return [line(head), rule, ...rows.map(line)].join("\n");
}

export function costTables(t: CfnTemplate, m: MeasuredMonth): string {
  const at = VOLUMES.map((n) =>
    fixedCosts(t, { mailsPerMonth: n, storedKbPerMail: m.storedKbPerMail, tick: m.tick }),
  );
  const first = at[0] ?? [];
  const fixedRows = first.map((l, i) => [l.what, ...at.map((lines) => usd(lines[i]?.usd ?? 0))]);
  const totals = at.map((lines) => lines.reduce((a, l) => a + l.usd, 0));
  const fixed = table(
    ["fixed, each month", ...VOLUMES.map((n) => `at ${mails(n)} mails`)],
    [false, true, true, true],
    [...fixedRows, ["total", ...totals.map(usd)]],
  );
  const month = table(
    ["mails a month", "fixed", "per mail (all AWS calls, SES receiving and sending included)", "total"],
    [true, true, true, true],
    VOLUMES.map((n, i) => {
      const f = totals[i] ?? 0;
      const p = m.perMailUsd * n;
      return [mails(n), `$${usd(f)}`, `$${usd(p)}`, `$${usd(f + p)}`];
    }),
  );
  return `${BEGIN}\n\nMeasured on ${m.measured} for \`${m.config}\`, model excluded:\n\n${fixed}\n\n${month}\n\n${END}`;
}

/** The generated block as the doc has it now, or null when its markers are missing. */
export function docBlock(doc: string): string | null {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  return a < 0 || b < a ? null : doc.slice(a, b + END.length);
}

export function readMeasured(file = MEASURED_FILE): MeasuredMonth {
  return JSON.parse(readFileSync(file, "utf8")) as MeasuredMonth;
}

/** bench:cost's last step: the measured inputs, and the doc's tables rendered from them and the template. */
export function writeCostDocs(t: CfnTemplate, m: MeasuredMonth, doc = DOC_FILE, file = MEASURED_FILE): void {
  writeFileSync(file, `${JSON.stringify(m, null, 2)}\n`);
  const text = readFileSync(doc, "utf8");
  const block = docBlock(text);
  if (block === null) throw new Error(`${doc} has no ${BEGIN} ... ${END} block`);
  writeFileSync(doc, text.replace(block, costTables(t, m)));
}
