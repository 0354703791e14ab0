/**
 * The target rows the benchmarks end with: each figure as it was measured before the work that set its target
 * (the cost, scale and crash figures on 2026-11-30, on the local stack: the code at commit a29c07b), the figure
 * measured in this run, and the target. The earlier figures are quoted, not re-measured: re-measure them by
 * running the same benchmark on that commit (bench/burst.ts and bench/cost.ts run there unchanged).
 */
export interface TargetRow {
  readonly what: string;
  /** As measured before the work that set the target. */
  readonly before: string;
  readonly now: string;
  readonly target: string;
  /** Whether `now` meets the target. */
  readonly met: boolean;
}

export function printTargets(
  rows: readonly TargetRow[],
  title = "cost and scale",
  beforeLabel = "before (a29c07b)",
): void {
  const header = [title, beforeLabel, "now", "target", ""];
  const cells = rows.map((r) => [r.what, r.before, r.now, r.target, r.met ? "met" : "NOT met"]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (c: readonly string[]) =>
    c.map((x, i) => (i === 0 ? x.padEnd(widths[i] ?? 0) : x.padStart(widths[i] ?? 0))).join("  ");
  console.log("");
  console.log(line(header));
  for (const c of cells) console.log(line(c));
}
