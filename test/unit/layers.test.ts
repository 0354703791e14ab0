import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkImports, type ImportFinding, type ImportRule } from "../layers/import-graph.ts";

// The layer rules and the front doors (README, "Layers"; docs/architecture.md) are an allow-list, the module map
// in test/layers/module-map.ts, checked over the resolved import graph (test/layers/import-graph.ts); import
// cycles, type-only ones included, are Biome's noImportCycles in biome.json. Both run here on deliberately bad
// files (test/fixtures/layers, mirroring the repo's folders), so a rule that stops firing fails here, and the
// map runs over the whole repository, so an import it does not allow fails here too.

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURES = join(ROOT, "test/fixtures/layers");
const BIOME = join(ROOT, "node_modules/.bin/biome");
const run = promisify(execFile);

let dir: string;
let lint: { file: string; rule: string }[];
let probes: ImportFinding[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-layers-"));
  cpSync(FIXTURES, dir, { recursive: true });
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
  lint = report.diagnostics.map((d) => ({ file: d.location.path, rule: d.category }));
  probes = await checkImports(FIXTURES);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusedIn = (file: string): ImportRule[] => probes.filter((f) => f.file === file).map((f) => f.rule);

describe("the module map refuses", () => {
  it.each<[string, string, ImportRule]>([
    ["a core importing an adapter", "shared/agent/uses-adapter.ts", "layer"],
    ["a core importing another core", "shared/agent/uses-core.ts", "layer"],
    ["an adapter importing a core's rules (not its ports.ts)", "shared/store/uses-rule.ts", "layer"],
    ["the gate importing the AWS SDK", "shared/gate/uses-sdk.ts", "aws-sdk"],
    ["layer 0 importing upwards", "shared/config/uses-mail.ts", "layer"],
    ["a handler importing rules past the wiring", "functions/verify/handler.ts", "layer"],
    ["an operator tool reaching the store past its ToolContext", "tools/reads-store.ts", "layer"],
    // Same eyes (G12): a tool that reads stored mail must go through ctx.mailbox.
    [
      "a built-in tool reading stored mail past the scoped mailbox",
      "shared/tool-framework/builtin/reads-store.ts",
      "layer",
    ],
    ["the CDK app loading a core", "infra/uses-core.ts", "layer"],
    ["the CLI importing a module's inner file", "cli/reads-inner.ts", "front-door"],
    ["the console importing a module's inner file", "console/reads-inner.ts", "front-door"],
    // The console sees ports; only its composition root (deps.ts, lambda.ts, server.ts) may import the store.
    [
      "a console file outside its composition root importing the store",
      "console/reads-store.ts",
      "root-only",
    ],
    ["a folder under shared/ nobody placed in the map", "shared/unplaced/signer.ts", "unlisted-module"],
    ["an import of a module the map does not list", "shared/outbound/uses-unlisted.ts", "unlisted-module"],
  ])("%s (%s)", (_what, file, rule) => {
    expect(refusedIn(file)).toContain(rule);
  });
});

describe("the module map allows", () => {
  it.each([
    ["a core's composition root importing adapters", "shared/agent/wiring.ts"],
    ["a core's composition root importing another core's front door", "shared/intake/wiring.ts"],
    ["an adapter implementing a core's port (its ports.ts)", "shared/store/implements-port.ts"],
    ["the CLI through a module's front door", "cli/uses-door.ts"],
    ["the console's composition root importing the store", "console/deps.ts"],
  ])("%s (%s)", (_what, file) => {
    expect(refusedIn(file)).toEqual([]);
  });
});

describe("the repository", () => {
  it("imports only what the module map allows, every module through its front door", async () => {
    expect(await checkImports(ROOT)).toEqual([]);
  });
});

describe("Biome's cycle rule fires on", () => {
  it("an import cycle", () => {
    const rules = (file: string) => lint.filter((f) => f.file === file).map((f) => f.rule);
    expect(rules("shared/mail/cycle-a.ts")).toContain("lint/suspicious/noImportCycles");
    expect(rules("shared/mail/cycle-b.ts")).toContain("lint/suspicious/noImportCycles");
  });

  it("a type-only import cycle (erased at runtime, still two files that change together)", () => {
    const rules = (file: string) => lint.filter((f) => f.file === file).map((f) => f.rule);
    expect(rules("shared/mail/type-cycle-a.ts")).toContain("lint/suspicious/noImportCycles");
    expect(rules("shared/mail/type-cycle-b.ts")).toContain("lint/suspicious/noImportCycles");
  });
});
