import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COVERAGE_FLOORS } from "../../../vitest.config.ts";
import { formatLine, moduleOf, summarise } from "../../harness/module-coverage.mjs";

const summary = (lines: [number, number], branches: [number, number], functions: [number, number]) => ({
  lines: { covered: lines[0], total: lines[1] },
  branches: { covered: branches[0], total: branches[1] },
  functions: { covered: functions[0], total: functions[1] },
});

describe("npm test's coverage report: one line per module", () => {
  it("names a file's module: shared/<dir>, shared for its top files, else the top folder", () => {
    expect(moduleOf("shared/gate/sender-proof.ts")).toBe("shared/gate");
    expect(moduleOf("shared/agent/loop/step.ts")).toBe("shared/agent");
    expect(moduleOf("shared/errors.ts")).toBe("shared");
    expect(moduleOf("cli/commands/runs.ts")).toBe("cli");
  });

  it("adds a module's files up by covered and total counts, not by averaging their percentages", () => {
    const rows = summarise(
      [
        { path: "/r/shared/gate/a.ts", summary: summary([9, 10], [1, 2], [1, 1]) },
        { path: "/r/shared/gate/b.ts", summary: summary([1, 90], [0, 0], [0, 1]) },
        { path: "/r/cli/c.ts", summary: summary([0, 0], [0, 0], [0, 0]) },
      ],
      "/r",
    );
    expect(rows).toEqual([
      { name: "cli", files: 1, lines: 100, branches: 100, functions: 100 },
      { name: "shared/gate", files: 2, lines: 10, branches: 50, functions: 50 },
    ]);
    expect(formatLine(rows[1] as (typeof rows)[number])).toBe(
      "coverage shared/gate            lines  10.0%  branches  50.0%  functions  50.0%  (2 files)",
    );
  });

  it("holds a floor for each module the house names: gate, intake, agent, outbound, mcp, webhooks", () => {
    expect(Object.keys(COVERAGE_FLOORS).sort()).toEqual(
      ["agent", "gate", "intake", "mcp", "outbound", "webhooks"].map((m) => `shared/${m}/**`),
    );
    for (const floor of Object.values(COVERAGE_FLOORS)) expect(floor.lines).toBeGreaterThanOrEqual(90);
  });

  // A reader learns the floors from the README: its table must say what vitest.config.ts enforces.
  it("the README's table of floors is COVERAGE_FLOORS", () => {
    const readme = readFileSync("README.md", "utf8");
    const rows = [...readme.matchAll(/^\| `(shared\/\w+)` +\| (\d+)% +\| (\d+)% +\| (\d+)% +\|$/gm)];
    const table = Object.fromEntries(
      rows.map(([, mod, lines, branches, functions]) => [
        `${mod}/**`,
        { lines: Number(lines), branches: Number(branches), functions: Number(functions) },
      ]),
    );
    expect(table).toEqual(COVERAGE_FLOORS);
  });
});
