import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLocal } from "../../cli/commands/doctor.ts";
import { runLocalDoctor } from "../../cli/doctor/local.ts";
import type { DoctorCheck } from "../../cli/doctor/report.ts";
import { type LocalStack, startLocalStack } from "../../cli/local/stack.ts";
import { silentLogger } from "../../shared/logger.ts";
import { WEBHOOK_EVENT_TYPES } from "../../shared/ports/index.ts";
import { AdminRepo } from "../../shared/store/index.ts";

/**
 * `postern doctor` against a local stack, no AWS: one fault of each kind (a model script missing, a model server
 * down, an agent at an unregistered domain and one on a model the catalog lacks, an MCP server that does not list, a
 * webhook receiver down, a loopback receiver without the stack's loopback switch, the config changed after the
 * start, the stack stopped), each a FAIL naming the fix; and what is healthy, ok.
 */

let root: string;
let dir: string;
let stack: LocalStack;
let model: Server;
let receiver: Server;
let deadPort: number;

const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as AddressInfo).port;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "postern-doctor-local-"));
  dir = join(root, ".postern");
  // An OpenAI-compatible server that answers a one-token call, and a webhook receiver.
  model = createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      req.url?.endsWith("/chat/completions")
        ? JSON.stringify({ choices: [{ message: { role: "assistant", content: "OK" } }] })
        : JSON.stringify({ data: [] }),
    );
  });
  receiver = createServer((_req, res) => res.writeHead(204).end());
  const [modelPort, receiverPort] = [await listen(model), await listen(receiver)];
  const closed = createServer();
  deadPort = await listen(closed);
  await new Promise((r) => closed.close(r));

  writeFileSync(join(root, "script.json"), JSON.stringify({ turns: [{ text: "hi" }] }));
  const openai = (id: string, port: number) => ({
    id,
    provider: "openai-compatible",
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: "llama3.1",
    egress: "internal",
  });
  writeFileSync(
    join(root, "postern.config.json"),
    JSON.stringify({
      domains: ["agents.example.net"],
      models: [
        { id: "scripted", provider: "scripted", script: "script.json", egress: "internal" },
        { id: "lost", provider: "scripted", script: "lost-script.json", egress: "internal" },
        openai("up", modelPort),
        openai("down", deadPort),
      ],
    }),
  );
  // Before the start: the stack records the config's state as of its start.
  utimesSync(join(root, "postern.config.json"), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  stack = await startLocalStack({
    dir,
    configPath: join(root, "postern.config.json"),
    smtpPort: 0,
    webhookLoopback: true,
  });
  const repo = new AdminRepo({
    dynamo: stack.clients.dynamo,
    tables: stack.resources.tables,
    logger: silentLogger,
  });
  // putAgent checks the item's shape only: the faults below are what an edited config or table leaves behind.
  for (const [address, m] of [
    ["good@agents.example.net", "scripted"],
    ["stray@elsewhere.example.org", "scripted"],
    ["orphan@agents.example.net", "gpt-9"],
  ])
    expect((await repo.putAgent({ address, name: "A", model: m })).ok).toBe(true);
  expect(
    (
      await repo.putMcpServer({
        id: "crm",
        transport: "http",
        url: `http://127.0.0.1:${deadPort}/mcp`,
        timeoutMs: 2000,
      })
    ).ok,
  ).toBe(true);
  const hook = (id: string, port: number) =>
    repo.putWebhook({ id, url: `http://127.0.0.1:${port}/hooks`, events: [WEBHOOK_EVENT_TYPES[0]] });
  expect((await hook("up", receiverPort)).ok).toBe(true);
  expect((await hook("down", deadPort)).ok).toBe(true);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await Promise.all([model, receiver].map((s) => new Promise((r) => s?.close(r))));
});

const doctor = () => runLocalDoctor({ dir, cwd: root, timeoutMs: 2000 });
const byName = (checks: readonly DoctorCheck[]) => new Map(checks.map((c) => [c.check, c]));
const fixOf = (c: DoctorCheck | undefined) => (c && "fix" in c ? c.fix : undefined);

describe("postern doctor, locally", () => {
  it("finds each fault with its fix, and says ok to what is healthy", async () => {
    const checks = byName(await doctor());
    expect(checks.get("local stack")?.status).toBe("ok");
    expect(checks.get("config")).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/unchanged since it started/),
    });
    expect(checks.get("model scripted")?.status).toBe("ok");
    expect(checks.get("model lost")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/its script .*lost-script\.json does not exist/),
    });
    expect(checks.get("model up")).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/one-token call/),
    });
    expect(checks.get("model down")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        new RegExp(`nothing answers at http://127\\.0\\.0\\.1:${deadPort}/v1 \\(ECONNREFUSED\\)`),
      ),
    });
    expect(fixOf(checks.get("model down"))).toMatch(/start the model server/);
    expect(checks.get("agent good@agents.example.net")?.status).toBe("ok");
    expect(checks.get("agent stray@elsewhere.example.org")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/domain elsewhere\.example\.org is not registered/),
    });
    expect(fixOf(checks.get("agent stray@elsewhere.example.org"))).toMatch(
      /add "elsewhere\.example\.org" to "domains"/,
    );
    expect(checks.get("agent orphan@agents.example.net")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/model gpt-9 is not in .*catalog/),
    });
    expect(checks.get("mcp crm")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/could not list crm's tools/),
    });
    expect(fixOf(checks.get("mcp crm"))).toMatch(/npx postern mcp remove crm/);
    expect(checks.get("webhook up")?.status).toBe("ok");
    expect(checks.get("webhook down")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/nothing answers/),
    });
    for (const c of checks.values()) if (c.status !== "ok") expect(fixOf(c)?.length).toBeGreaterThan(10);
  });

  it("a receiver on this machine needs the loopback switch the stack was started without", async () => {
    const file = join(dir, "stack.json");
    const saved = readFileSync(file, "utf8");
    const { webhookLoopback: _on, ...without } = JSON.parse(saved) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify(without));
    try {
      const hook = byName(await doctor()).get("webhook up");
      expect(hook).toMatchObject({
        status: "fail",
        detail: expect.stringMatching(/started without POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1/),
      });
      expect(fixOf(hook)).toBe("stop the stack, then `POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1 npm start`");
    } finally {
      writeFileSync(file, saved);
    }
  });

  it("a config edited after the start: the stack still runs the old one, so restart", async () => {
    const file = join(root, "postern.config.json");
    utimesSync(file, new Date(), new Date(Date.now() + 1000));
    const config = byName(await doctor()).get("config");
    expect(config).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/changed at .* after the stack started/),
    });
    expect(fixOf(config)).toMatch(/then `npm start`/);
    utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    // Another config than the one the stack runs (here --config names it; a postern.config.json made after a demo
    // start is the same case).
    const other = join(root, "other.config.json");
    writeFileSync(other, readFileSync(file));
    const switched = byName(await runLocalDoctor({ dir, cwd: root, config: other, timeoutMs: 2000 })).get(
      "config",
    );
    expect(switched).toMatchObject({
      status: "fail",
      detail: "the stack runs postern.config.json, but other.config.json is the config here",
    });
  });

  it("knows it is local: --local, or no AWS region named and a local stack's state directory here", () => {
    expect(isLocal({ local: true, region: "eu-west-1", dir: "/nowhere" }, {})).toBe(true);
    expect(isLocal({ dir }, {})).toBe(true);
    expect(isLocal({ dir: join(root, "absent") }, {})).toBe(false);
    expect(isLocal({ dir, region: "eu-west-1" }, {})).toBe(false);
    expect(isLocal({ dir, resources: "r.json" }, {})).toBe(false);
    expect(isLocal({ dir }, { AWS_REGION: "eu-west-1" })).toBe(false);
    expect(isLocal({ dir }, { AWS_DEFAULT_REGION: "eu-west-1" })).toBe(false);
  });

  it("with the stack stopped: says so first, still checks the config's models, skips the tables", async () => {
    await stack.stop();
    const checks = byName(await doctor());
    expect(checks.get("local stack")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/no stack runs/),
    });
    expect(fixOf(checks.get("local stack"))).toMatch(/`npm start`/);
    expect(checks.get("model lost")?.status).toBe("fail");
    expect(checks.get("agents")?.status).toBe("skipped");
  });
});
