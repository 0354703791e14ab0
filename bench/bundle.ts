/**
 * Bundle benchmark: each function's bundle size and cold module-initialisation time (median of fresh
 * processes), bundled as CDK deploys it (infra/bundling.ts), bundled with the AWS SDK left external (the
 * alternative: the SDK from the Lambda runtime), and unbundled under tsx.
 *
 *   npx tsx bench/bundle.ts [runs]      (default 7 runs per variant)
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { esbuildOptions, FUNCTION_STUBS } from "../infra/bundling.ts";
import type { Resources } from "../shared/config/resources.ts";
import { TABLE_KEYS, type TableKey } from "../shared/config/tables.ts";
import { functionEnv } from "../test/infra/bundle-env.ts";
import { printTargets } from "./targets.ts";

const ROOT = resolve(import.meta.dirname, "..");
const RUNNER = join(ROOT, "test/infra/run-handler.mjs");
const FUNCTIONS = ["verify", "agent-step", "outbound"] as const;
const runs = Number(process.argv[2] ?? 7);
const run = promisify(execFile);

const resources: Resources = {
  region: "us-east-1",
  tables: Object.fromEntries(TABLE_KEYS.map((k) => [k, `bench-${k}`])) as Record<TableKey, string>,
  bucket: "bench",
  queues: { verify: "https://q/v", agentStep: "https://q/a", outbound: "https://q/o" },
};
const env = functionEnv(
  resources,
  join(ROOT, "postern.config.example.json"),
  join(tmpdir(), "bench-zone.json"),
);
writeFileSync(env.POSTERN_DNS_ZONE_FILE as string, "{}");

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

/** Median import time (measured inside the process) and median wall time of the whole process. */
async function coldInit(module: string, nodeArgs: string[]): Promise<{ init: number; wall: number }> {
  const inits: number[] = [];
  const walls: number[] = [];
  const out = join(tmpdir(), `bench-${process.pid}.json`);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await run(process.execPath, [...nodeArgs, RUNNER, module, "[]", out], { cwd: ROOT, env });
    walls.push(performance.now() - t0);
    inits.push((JSON.parse(readFileSync(out, "utf8")) as { initMs: number }).initMs);
  }
  return { init: median(inits), wall: median(walls) };
}

// External-SDK bundles must resolve @aws-sdk from the project's node_modules, so they are written inside it.
const cache = join(ROOT, "node_modules/.cache");
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(join(cache, "postern-bench-"));
const rows: string[][] = [];
for (const fn of FUNCTIONS) {
  const entry = join(ROOT, "functions", fn, "handler.ts");
  const bundled = join(dir, `${fn}.mjs`);
  const external = join(dir, `${fn}-sdk-external.mjs`);
  const stubs = FUNCTION_STUBS[fn];
  await build(esbuildOptions(entry, bundled, { stubs }));
  await build(esbuildOptions(entry, external, { external: ["@aws-sdk/*"], stubs }));
  const b = await coldInit(bundled, []);
  const e = await coldInit(external, []);
  const t = await coldInit(entry, ["--import", "tsx"]);
  const kb = (p: string) => (statSync(p).size / 1024).toFixed(0);
  rows.push([
    fn,
    kb(bundled),
    kb(external),
    b.init.toFixed(0),
    e.init.toFixed(0),
    t.init.toFixed(0),
    (t.init / b.init).toFixed(1),
    `${b.wall.toFixed(0)} / ${t.wall.toFixed(0)}`,
  ]);
}

const header = [
  "function",
  "bundle KB",
  "SDK-ext KB",
  "init ms",
  "SDK-ext init",
  "tsx init",
  "tsx/bundle",
  "process ms b/tsx",
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
const line = (r: string[]) => r.map((c, i) => c.padStart(widths[i] ?? 0)).join("  ");
console.log(`cold module initialisation, median of ${runs} fresh processes (Node ${process.versions.node})`);
console.log(line(header));
for (const r of rows) console.log(line(r));
const verifyRow = rows.find((r) => r[0] === "verify");
const verifyBytes = statSync(join(dir, "verify.mjs")).size;
const verifyInit = Number(verifyRow?.[3]);
printTargets([
  {
    what: "verify bundle size",
    before: "2.4 MB",
    now: `${(verifyBytes / 1e6).toFixed(2)} MB`,
    target: "≤ 1.3 MB",
    met: verifyBytes <= 1_300_000,
  },
  {
    what: "verify bundled cold init",
    before: "187 ms",
    now: `${verifyInit.toFixed(0)} ms`,
    target: "≤ 120 ms",
    met: verifyInit <= 120,
  },
]);
