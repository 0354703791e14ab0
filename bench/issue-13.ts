/**
 * Issue 13's table ("Cost, scale and crashes"): each benchmark prints its rows with the figure the issue measured
 * when it was filed (2026-11-30, on the local stack: the code at commit a29c07b), the figure measured in this run,
 * and the target. The issue's figures are quoted, not re-measured: re-measure them by running the same benchmark
 * on that commit (bench/burst.ts and bench/cost.ts run there unchanged).
 */
export interface TargetRow {
  readonly what: string;
  /** As the issue measured it when it was filed. */
  readonly filed: string;
  readonly now: string;
  readonly target: string;
  /** Whether `now` meets the target. */
  readonly met: boolean;
}

export function printTargets(
  rows: readonly TargetRow[],
  issue = "issue 13",
  filed = "when filed (a29c07b)",
): void {
  const header = [issue, filed, "now", "target", ""];
  const cells = rows.map((r) => [r.what, r.filed, r.now, r.target, r.met ? "met" : "NOT met"]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (c: readonly string[]) =>
    c.map((x, i) => (i === 0 ? x.padEnd(widths[i] ?? 0) : x.padStart(widths[i] ?? 0))).join("  ");
  console.log("");
  console.log(line(header));
  for (const c of cells) console.log(line(c));
}
