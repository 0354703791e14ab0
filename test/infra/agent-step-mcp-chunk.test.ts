import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build, type Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_STEP_STUBS, esbuildOptions } from "../../infra/bundling.ts";
import { startEverythingHttp } from "../helpers/mcp-servers/everything.ts";
import { ROOT } from "./synth.ts";

// Agent-step's cold start does not parse the MCP client: infra/bundling.ts swaps shared/mcp/open-session.ts for
// lazy-open-session.ts in its bundle, whose dynamic import esbuild splits into a chunk. What the entry loads at
// init (itself and the chunks it imports statically) holds neither the SDK nor ajv; a run that connects loads them.

const run = promisify(execFile);
const MCP = /node_modules\/(@modelcontextprotocol\/sdk|ajv)\//;
let dir: string;
let meta: Metafile;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-agent-step-chunks-"));
  const r = await build({
    ...esbuildOptions(join(ROOT, "functions/agent-step/handler.ts"), join(dir, "step", "index.mjs"), {
      stubs: AGENT_STEP_STUBS,
    }),
    metafile: true,
  });
  meta = r.metafile;
  await build(
    esbuildOptions(join(ROOT, "test/infra/mcp-probe.ts"), join(dir, "probe", "index.mjs"), {
      stubs: AGENT_STEP_STUBS,
    }),
  );
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The outputs a fresh process loads when it imports `entry`: the entry and what it imports statically. */
function loadedAtInit(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of meta.outputs[file]?.imports ?? [])
      if (i.kind === "import-statement" && !i.external) visit(i.path);
  };
  visit(entry);
  return [...seen];
}

const inputsOf = (files: readonly string[]) =>
  files.flatMap((f) =>
    Object.entries(meta.outputs[f]?.inputs ?? {})
      .filter(([, i]) => i.bytesInOutput > 0)
      .map(([p]) => p),
  );

describe("agent-step's MCP client, loaded on a run's first connection", () => {
  it("is not in what the entry loads at init, but in a chunk of the bundle", () => {
    const entry = Object.keys(meta.outputs).find((f) => f.endsWith("/step/index.mjs")) ?? "";
    const atInit = loadedAtInit(entry);
    expect(inputsOf(atInit).filter((p) => MCP.test(p))).toEqual([]);
    const later = Object.keys(meta.outputs).filter((f) => !atInit.includes(f));
    expect(
      inputsOf(later).some((p) => /@modelcontextprotocol\/sdk\/dist\/esm\/client\/index\.js$/.test(p)),
    ).toBe(true);
    expect(inputsOf(later).some((p) => /node_modules\/ajv\//.test(p))).toBe(true);
  });

  it("nor are the Secrets Manager and SSM clients, loaded on a run's first secret read", () => {
    const entry = Object.keys(meta.outputs).find((f) => f.endsWith("/step/index.mjs")) ?? "";
    const atInit = loadedAtInit(entry);
    const SECRET_CLIENTS = /node_modules\/@aws-sdk\/client-(secrets-manager|ssm)\//;
    expect(inputsOf(atInit).filter((p) => SECRET_CLIENTS.test(p))).toEqual([]);
    const later = Object.keys(meta.outputs).filter((f) => !atInit.includes(f));
    for (const client of ["client-secrets-manager", "client-ssm"])
      expect(inputsOf(later).some((p) => p.includes(`@aws-sdk/${client}/`))).toBe(true);
  });

  it("connects from the bundle: the chunk loads and lists the reference server's tools", async () => {
    const server = await startEverythingHttp();
    try {
      const resultFile = join(dir, "probe-result.json");
      await run(process.execPath, [join(dir, "probe", "index.mjs"), server.url, resultFile], { cwd: dir });
      const { tools } = JSON.parse(readFileSync(resultFile, "utf8")) as { tools: string[] };
      expect(tools).toEqual(expect.arrayContaining(["echo", "get-sum"]));
    } finally {
      await server.close();
    }
  }, 60_000);
});
