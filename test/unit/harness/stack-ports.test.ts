import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import net from "node:net";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { START_DEFAULTS } from "../../../cli/commands/start.ts";
import { DEFAULT_SMTP_PORT } from "../../../cli/local/smtp-intake.ts";
import { DEFAULT_CONSOLE_PORT } from "../../../console/server.ts";
import { STACK_PORTS } from "../../harness/stack-ports.mjs";

/**
 * `npm test` must pass while `npm start` runs (the README's two terminals): no test may bind or reach the local
 * stack's default ports. The guard in test/harness/stack-ports-guard.mjs enforces it at run time; these tests prove
 * the guard covers the CLI's real defaults and fires in the workers and in spawned processes, and scan the test
 * sources for the ports written out.
 */

const ROOT = join(import.meta.dirname, "../../..");
const ports = STACK_PORTS;

describe("the default-port guard of the test harness", () => {
  it("covers every default port of `postern start`", () => {
    const defaults = new Set([
      START_DEFAULTS.smtpPort,
      START_DEFAULTS.awsPort,
      START_DEFAULTS.dynamoPort,
      START_DEFAULTS.sesPort,
      START_DEFAULTS.consolePort,
      DEFAULT_SMTP_PORT,
      DEFAULT_CONSOLE_PORT,
    ]);
    expect([...ports].sort()).toEqual([...defaults].sort());
  });

  it.each(ports)("refuses a listen on %i inside a test", (port) => {
    const server = net.createServer();
    expect(() => server.listen(port, "127.0.0.1")).toThrow(/default port of the local stack/);
    expect(() => server.listen({ port })).toThrow(/default port of the local stack/);
    expect(server.listening).toBe(false);
  });

  it.each(ports)("refuses a loopback connect to %i inside a test", (port) => {
    expect(() => net.connect(port, "127.0.0.1")).toThrow(/default port of the local stack/);
    expect(() => net.connect({ port, host: "localhost" })).toThrow(/default port of the local stack/);
  });

  it("still lets a test bind port 0 and connect to the port it got", async () => {
    const server = net.createServer((s) => s.end("hi"));
    await new Promise<void>((res) => server.listen(0, "127.0.0.1", res));
    const { port } = server.address() as net.AddressInfo;
    const got = await new Promise<string>((res, rej) => {
      let text = "";
      net
        .connect(port, "127.0.0.1")
        .on("data", (d) => (text += d))
        .on("end", () => res(text))
        .on("error", rej);
    });
    server.close();
    expect(got).toBe("hi");
  });

  it("fires in a Node process a test spawns (postern start, dev send, tsx scripts)", () => {
    const script = `require("node:net").createServer().listen(${START_DEFAULTS.consolePort}, "127.0.0.1", () => { console.log("bound"); process.exit(0); });`;
    const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(child.stdout).not.toContain("bound");
    expect(child.stderr).toContain(`tried to listen on port ${START_DEFAULTS.consolePort}`);
    expect(child.status).not.toBe(0);
  });
});

describe("test sources", () => {
  const sources = [...walk(join(ROOT, "test"))].filter(
    (f) => /\.(ts|mjs)$/.test(f) && !f.endsWith("stack-ports.mjs") && !f.endsWith("stack-ports.test.ts"),
  );

  it("are scanned (not vacuous)", () => {
    expect(sources.length).toBeGreaterThan(100);
  });

  it("never write out a default port of the local stack", () => {
    const literal = new RegExp(`(?<![\\w.-])(${ports.join("|")})(?![\\w.-])`);
    const hits = sources.filter((f) => literal.test(readFileSync(f, "utf8"))).map((f) => relative(ROOT, f));
    expect(hits).toEqual([]);
  });

  it("pass every port flag, as 0, when they spawn `postern start`", () => {
    const flags = ["--smtp-port", "--aws-port", "--dynamodb-port", "--ses-port"];
    const missing = sources.flatMap((f) => {
      const text = readFileSync(f, "utf8");
      if (!/bin\/postern\.mjs"\)?,\s*"start"/.test(text)) return [];
      const lacking = flags.filter((flag) => !text.includes(`"${flag}"`));
      if (!text.includes('"--console-port"') && !text.includes('"--no-console"'))
        lacking.push("--console-port");
      return lacking.map((flag) => `${relative(ROOT, f)}: ${flag}`);
    });
    expect(missing).toEqual([]);
  });
});

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "fixtures" || name === "__snapshots__") continue;
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
