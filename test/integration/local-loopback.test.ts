import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { Resources } from "../../shared/config/resources.ts";
import { listeningSockets } from "../helpers/listening-sockets.ts";

/**
 * Fauxqs listened on 0.0.0.0, so anyone on the developer's network could read raw mail from the bucket
 * and put messages on the queues. This starts `postern start` as `npm start` runs it (persisted state, the demo,
 * the console on) and lists every TCP socket its process group listens on, from /proc: each must be bound to
 * 127.0.0.1. The list is the kernel's, not the stack's own idea of its listeners, so a listener added later is
 * checked too.
 */
const ROOT = join(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "postern-loopback-"));
let child: ChildProcess | undefined;
afterAll(async () => {
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((res) => child?.once("exit", res));
    process.kill(-child.pid, "SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

it("every socket `postern start` listens on is bound to 127.0.0.1", { timeout: 60_000 }, async () => {
  const ports = ["--smtp-port", "--aws-port", "--dynamodb-port", "--ses-port", "--console-port"].flatMap(
    (p) => [p, "0"],
  );
  const stack = spawn(
    join(ROOT, "node_modules/.bin/node"),
    [join(ROOT, "bin/postern.mjs"), "start", "--dir", dir, "--config", join(dir, "absent.json"), ...ports],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  child = stack;
  let out = "";
  stack.stdout?.on("data", (d) => (out += d));
  stack.stderr?.on("data", (d) => (out += d));
  const end = Date.now() + 45_000;
  // The console's banner is printed last, once everything listens.
  while (!/sign in once with:\s+\S+/.test(out)) {
    if (stack.exitCode !== null) throw new Error(`postern start exited with ${stack.exitCode}:\n${out}`);
    if (Date.now() > end) throw new Error(`postern start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (stack.pid === undefined) throw new Error("no pid");

  const listeners = listeningSockets(stack.pid);
  expect(listeners.filter((l) => l.address !== "127.0.0.1")).toEqual([]);

  // Not vacuous: the kernel's list holds every service the stack announced.
  const file = JSON.parse(readFileSync(join(dir, "stack.json"), "utf8")) as {
    resources: Resources;
    smtp: { port: number };
  };
  const consoleUrl = /Operator console\s+(http:\/\/\S+)/.exec(out)?.[1];
  const announced = [
    file.smtp.port,
    ...[
      file.resources.endpoints?.s3,
      file.resources.endpoints?.dynamodb,
      file.resources.endpoints?.ses,
      consoleUrl,
    ].map((u) => Number(new URL(u ?? "http://missing").port)),
  ];
  expect(announced.every((p) => p > 0)).toBe(true);
  for (const port of announced) expect(listeners.map((l) => l.port)).toContain(port);
});
