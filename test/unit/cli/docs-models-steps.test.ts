import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unreadyAgents } from "../../../cli/local/agent-readiness.ts";
import { demoAdminDocument, ensureDemoFiles } from "../../../cli/local/demo.ts";
import { loadConfigFile } from "../../../shared/config/index.ts";

/**
 * docs/models.md's first step, run as written: its shell block, in a folder where `npm start` has written the demo
 * (ensureDemoFiles, as a first start does), must leave a postern.config.json that `npm start` accepts for the demo's
 * agents (the same check start.ts makes). Copying the config alone left both agents without their scripts.
 */
const ROOT = join(import.meta.dirname, "../../..");

/** The ```sh blocks of the numbered step that starts with `title`, in order. */
function stepBlocks(doc: string, title: string): string[] {
  const start = doc.indexOf(title);
  expect(start, `docs/models.md has the step "${title}"`).toBeGreaterThan(0);
  const end = doc.indexOf("\n2. ", start);
  return [...doc.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    (m[1] ?? "").replace(/^ {3}/gm, ""),
  );
}

describe("docs/models.md, step 1", () => {
  it("run as written, leaves a config whose demo agents npm start accepts", async () => {
    const doc = readFileSync(join(ROOT, "docs/models.md"), "utf8");
    const blocks = stepBlocks(doc, "1. **Start from the demo's config.**");
    expect(blocks.length).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), "postern-models-doc-"));
    ensureDemoFiles(join(dir, ".postern"));
    for (const block of blocks) execFileSync("bash", ["-euo", "pipefail", "-c", block], { cwd: dir });

    const configFile = join(dir, "postern.config.json");
    const config = loadConfigFile(configFile);
    expect(config.config.domains).toEqual(["demo.postern.test"]);
    const agents = demoAdminDocument("operator@postern.test").agents;
    expect(await unreadyAgents({ agents, config, configFile })).toEqual([]);
  });
});
