/**
 * `npm run bench:cli`: how long a `postern` command takes from the shell's point of view (process start to exit),
 * median of 10, next to `node -e 0` measured in the same run (the floor no CLI on Node can beat): `postern --help`,
 * `postern runs list` against a running local stack (started here on free ports, in a temporary directory), and
 * the same through `npx` and `npm run`, whose own start (npm's) comes on top. Ends with its target row.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../cli/local/stack.ts";
import { printTargets } from "./targets.ts";

const ROOT = join(import.meta.dirname, "..");
const RUNS = Number(process.env.CLI_RUNS ?? 10);
const TARGET_MS = 500;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Asynchronous on purpose: the stack runs in this process, and its DynamoDB must answer while we wait. */
function time(cmd: string, args: readonly string[]): Promise<number> {
  const t0 = performance.now();
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((res, rej) =>
    child.on("close", (code) =>
      code === 0
        ? res(performance.now() - t0)
        : rej(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${stderr}`)),
    ),
  );
}

async function row(what: string, cmd: string, args: readonly string[], floor?: number) {
  await time(cmd, args); // warm: the compile cache and the OS file cache, as an operator's second call finds them
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await time(cmd, args));
  const ms = median(times);
  const ratio = floor ? `  ${(ms / floor).toFixed(1)}x node -e 0` : "";
  console.log(`${what.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms${ratio}`);
  return ms;
}

const dir = mkdtempSync(join(tmpdir(), "postern-bench-cli-"));
const stack = await startLocalStack({
  dir,
  configPath: join(dir, "absent.config.json"),
  smtpPort: 0,
  awsPort: 0,
  dynamoPort: 0,
  sesPort: 0,
});
try {
  const node = process.execPath;
  const bin = join(ROOT, "bin/postern.mjs");
  const dataDir = ["--data-dir", join(dir, "data")];
  console.log(`median of ${RUNS}, ${node} (Node ${process.versions.node})\n`);
  const floor = await row("node -e 0", node, ["-e", "0"]);
  const help = await row("postern --help", node, [bin, "--help"], floor);
  const list = await row("postern runs list (running stack)", node, [bin, "runs", "list", ...dataDir], floor);
  await row("npx postern --help", "npx", ["--no-install", "postern", "--help"], floor);
  await row("npm run postern -- --help", "npm", ["run", "--silent", "postern", "--", "--help"], floor);
  await row(
    "npx postern runs list (running stack)",
    "npx",
    ["--no-install", "postern", "runs", "list", ...dataDir],
    floor,
  );

  printTargets(
    [
      {
        what: "postern --help",
        before: "4-9 s",
        now: `${help.toFixed(0)} ms`,
        target: `< ${TARGET_MS} ms`,
        met: help < TARGET_MS,
      },
      {
        what: "postern runs list, running stack",
        before: "4-9 s",
        now: `${list.toFixed(0)} ms`,
        target: `< ${TARGET_MS} ms`,
        met: list < TARGET_MS,
      },
    ],
    "CLI start",
    "before (tsx)",
  );
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
