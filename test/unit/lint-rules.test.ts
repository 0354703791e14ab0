import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The lint rules that are habits, not style (issue: unused code is an error, as Powertools has it): an unused
// import, variable or parameter fails `npm run check`. Proven on a bad file linted with the repository's own
// rules (biome.json's linter section, copied beside the probe so the scan stays within it).

const dir = mkdtempSync(join(tmpdir(), "postern-lint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lint(source: string): string[] {
  const config = JSON.parse(readFileSync("biome.json", "utf8")) as Record<string, unknown>;
  const { $schema: _schema, files: _files, ...rules } = config;
  writeFileSync(join(dir, "biome.json"), JSON.stringify(rules));
  writeFileSync(join(dir, "probe.ts"), source);
  const out = spawnSync(
    "node_modules/.bin/biome",
    ["lint", `--config-path=${join(dir, "biome.json")}`, "--reporter=json", join(dir, "probe.ts")],
    { encoding: "utf8" },
  );
  const report = JSON.parse(out.stdout) as { diagnostics: { category: string; severity: string }[] };
  return report.diagnostics.filter((d) => d.severity === "error").map((d) => d.category);
}

describe("unused code is a lint error", () => {
  it("an unused import, variable and parameter each fail the check", () => {
    const errors = lint(
      [
        'import { readFileSync } from "node:fs";',
        "export function f(a: number, b: number): number {",
        "  const unused = 1;",
        "  return a;",
        "}",
        "",
      ].join("\n"),
    );
    expect(errors.sort()).toEqual([
      "lint/correctness/noUnusedFunctionParameters",
      "lint/correctness/noUnusedImports",
      "lint/correctness/noUnusedVariables",
    ]);
  });

  it("a file that uses what it declares passes", () => {
    expect(lint("export function f(a: number): number {\n  return a;\n}\n")).toEqual([]);
  });
});
