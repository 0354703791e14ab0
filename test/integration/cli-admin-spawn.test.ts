import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { openTarget } from "../../cli/target.ts";
import { silentLogger } from "../../shared/logger.ts";
import { AdminRepo } from "../../shared/store/admin-repo.ts";

const run = promisify(execFile);

const BIN = join(import.meta.dirname, "../../bin/postern.mjs");

/**
 * The real binary (bin/postern.mjs → cli/main.ts → registerAdminCommands), on this test's Node 24, in `cwd`: never
 * the repository, where a developer's own postern.config.json or .postern/ would be read.
 */
async function postern(
  cwd: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [BIN, ...args], { timeout: 60_000, cwd });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

it("`postern admin import` writes the issue's document into the local data dir; usage errors exit 2", async () => {
  const root = mkdtempSync(join(tmpdir(), "postern-spawn-"));
  const dataDir = join(root, "data");
  const file = join(root, "admin.json");
  writeFileSync(
    file,
    JSON.stringify({
      agents: [{ address: "suzie@shopping.example.net", name: "Suzie", model: "demo" }],
      accessRules: [
        { agent: "suzie@shopping.example.net", pattern: "joe@football.example.com", effect: "allow" },
      ],
      toolkits: [{ id: "default", tools: ["send_email"], agents: ["suzie@shopping.example.net"] }],
    }),
  );
  // Without postern.config.json or --config, a local write is checked against the demo config `npm start` uses
  // (written next to the data dir): its domain is not this document's, so nothing is imported.
  const demo = await postern(root, "admin", "import", file, "--data-dir", dataDir);
  expect(demo).toMatchObject({ code: 1, stdout: "" });
  expect(demo.stderr).toContain(
    'agents[0].address: domain "shopping.example.net" is not registered; an agent\'s address must be at one of: demo.postern.test',
  );
  const config = join(root, "postern.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      domains: ["shopping.example.net"],
      models: [{ id: "demo", provider: "scripted", script: "script.json", egress: "internal" }],
    }),
  );
  const imported = await postern(root, "admin", "import", file, "--data-dir", dataDir, "--config", config);
  expect(imported).toMatchObject({ code: 0, stdout: "imported 3 item(s)\n" });

  const t = await openTarget({ dataDir });
  try {
    const repo = new AdminRepo({
      dynamo: t.clients.dynamo,
      tables: t.resources.tables,
      logger: silentLogger,
    });
    expect((await repo.listAgents()).map((a) => a.address)).toEqual(["suzie@shopping.example.net"]);
  } finally {
    await t.close();
  }

  const usage = await postern(
    root,
    "rules",
    "add",
    "--agent",
    "a@b.example",
    "--pattern",
    "x@y.example",
    "--effect",
    "maybe",
  );
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain("--effect");
}, 120_000);
