import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The lint rules that are habits, not style (issue: unused code is an error, as Powertools has it): an unused
// import, variable or parameter fails `npm run check`. Proven on a bad file linted with the repository's own
// rules (biome.json's linter section, copied beside the probe so the scan stays within it).

const dir = mkdtempSync(join(tmpdir(), "postern-lint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const repoConfig = () => JSON.parse(readFileSync("biome.json", "utf8")) as Record<string, unknown>;

function lint(source: string, path = "probe.ts", config = repoConfig()): string[] {
  const { $schema: _schema, files: _files, ...rules } = config;
  writeFileSync(join(dir, "biome.json"), JSON.stringify(rules));
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), source);
  const out = spawnSync(
    "node_modules/.bin/biome",
    ["lint", `--config-path=${join(dir, "biome.json")}`, "--reporter=json", join(dir, path)],
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

// A function a reader must scroll through hides what it does (issue: functions over 80 lines had doubled in a week):
// in shared/, one over 80 lines, blank and comment lines counted, fails `npm run check`.
describe("no function in shared/ over 80 lines", () => {
  // `bodyLines` lines between the braces: what biome's noExcessiveLinesPerFunction counts.
  const fn = (bodyLines: number) =>
    `export function f(): void {\n${Array.from({ length: bodyLines }, (_, i) => `  void ${i};`).join("\n")}\n}\n`;

  it("a function of 81 lines in shared/ fails the check; one of 80 passes", () => {
    expect(lint(fn(81), "shared/probe.ts")).toEqual(["lint/complexity/noExcessiveLinesPerFunction"]);
    expect(lint(fn(80), "shared/probe.ts")).toEqual([]);
  });

  it("outside shared/ the rule does not apply", () => {
    expect(lint(fn(120), "cli/probe.ts")).toEqual([]);
  });
});
