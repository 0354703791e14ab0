import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The layer rules (README, Layout) are enforced by Biome's noRestrictedImports overrides and noImportCycles in
// biome.json. This lints deliberately bad files (test/fixtures/layers, mirroring the repo's folders) with the
// repo's own biome.json, so a rule that stops firing, or a pattern that stops matching, fails here.

const ROOT = resolve(import.meta.dirname, "../..");
const BIOME = join(ROOT, "node_modules/.bin/biome");
const run = promisify(execFile);

interface Finding {
  readonly file: string;
  readonly rule: string;
}

let dir: string;
let findings: Finding[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-layers-"));
  cpSync(join(ROOT, "test/fixtures/layers"), dir, { recursive: true });
  const config = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")) as Record<string, unknown>;
  delete config.$schema;
  writeFileSync(join(dir, "biome.json"), JSON.stringify(config));
  const out = await run(
    BIOME,
    ["lint", "--log-level=none", "--reporter=json", "--max-diagnostics=none", "."],
    { cwd: dir },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? "" }));
  const report = JSON.parse(out.stdout) as {
    diagnostics: { category: string; location: { path: string } }[];
  };
  findings = report.diagnostics.map((d) => ({ file: d.location.path, rule: d.category }));
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RESTRICTED = "lint/style/noRestrictedImports";
const rulesFor = (file: string) => findings.filter((f) => f.file === file).map((f) => f.rule);

describe("the layer rules lint fails on", () => {
  it.each([
    ["a core importing an adapter", "shared/agent/uses-adapter.ts"],
    ["a core importing another core", "shared/agent/uses-core.ts"],
    ["an adapter importing a core's rules", "shared/store/uses-rule.ts"],
    ["the gate importing the AWS SDK", "shared/gate/uses-sdk.ts"],
    ["layer 0 importing upwards", "shared/config/uses-mail.ts"],
    ["a handler importing rules past the wiring", "functions/verify/handler.ts"],
    ["an operator tool reaching the store past its ToolContext", "tools/reads-store.ts"],
    // The tripwire for same eyes: a tool that reads stored mail must go through ctx.mailbox.
    [
      "a built-in tool reading stored mail past the scoped mailbox",
      "shared/tool-framework/builtin/reads-store.ts",
    ],
  ])("%s (%s)", (_what, file) => {
    expect(rulesFor(file)).toContain(RESTRICTED);
  });

  it("an import cycle", () => {
    expect(rulesFor("shared/mail/cycle-a.ts")).toContain("lint/suspicious/noImportCycles");
    expect(rulesFor("shared/mail/cycle-b.ts")).toContain("lint/suspicious/noImportCycles");
  });

  it("a type-only import cycle (erased at runtime, still two files that change together)", () => {
    expect(rulesFor("shared/mail/type-cycle-a.ts")).toContain("lint/suspicious/noImportCycles");
    expect(rulesFor("shared/mail/type-cycle-b.ts")).toContain("lint/suspicious/noImportCycles");
  });
});

describe("the layer rules allow", () => {
  it.each([
    ["a core's wiring importing adapters", "shared/agent/wiring.ts"],
    ["an adapter implementing a core's port", "shared/store/implements-port.ts"],
  ])("%s (%s)", (_what, file) => {
    expect(rulesFor(file)).not.toContain(RESTRICTED);
  });
});
