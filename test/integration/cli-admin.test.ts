import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../cli/commands/admin.ts";
import { TargetError } from "../../cli/errors.ts";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { openTarget, type Target } from "../../cli/target.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import { silentLogger } from "../../shared/logger.ts";
import { AdminRepo } from "../../shared/store/admin-repo.ts";
import { testCatalog } from "../helpers/admin-catalog.ts";

const SUZIE = "suzie@shopping.example.net";
const catalog = testCatalog();
const MINIMAL = {
  agents: [{ address: SUZIE, name: "Suzie", model: "demo" }],
  accessRules: [{ agent: SUZIE, pattern: "joe@football.example.com", effect: "allow" }],
  toolkits: [{ id: "default", tools: ["send_email"], agents: [SUZIE] }],
};

let em: Emulators;
let clients: AwsClients;
let dir: string;
let opened: string[];

const target = (kind: Target["kind"] = "local-running"): Target => ({
  kind,
  resources: em.resources,
  clients,
  close: async () => {},
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return cliWith({ catalog }, ...argv);
}

/** The CLI in-process; without `catalog` it finds the deployment config itself (--config, stack.json, ...). */
async function cliWith(
  deps: { catalog?: ReturnType<typeof testCatalog> },
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io = {
    out: (t: string) => {
      out += t;
    },
    err: (t: string) => {
      err += t;
    },
  };
  const code = await runAdminCommand(argv, {
    ...deps,
    // Never the working directory: a developer's own postern.config.json or .postern/ there is not this test's.
    cwd: dir,
    io,
    open: async (o) => {
      opened.push(o.target ?? "local");
      // The emulators stand in for AWS too; the kind is what the command sees (no demo config for AWS).
      return target(o.target === "aws" ? "aws" : "local-running");
    },
  });
  return { code, out, err };
}

beforeAll(async () => {
  em = await startEmulators();
  clients = makeClients(em.resources);
  dir = mkdtempSync(join(tmpdir(), "postern-cli-"));
});
afterAll(async () => {
  clients.dynamo.destroy();
  await em.stop();
});
beforeEach(async () => {
  opened = [];
  const repo = new AdminRepo({ dynamo: clients.dynamo, tables: em.resources.tables, logger: silentLogger });
  await repo.importDocument({}, { replace: true, catalog });
});

describe("postern admin import/export", () => {
  it("imports the issue's document and lists it", async () => {
    const file = join(dir, "minimal.json");
    writeFileSync(file, JSON.stringify(MINIMAL));
    expect(await cli("admin", "import", file)).toEqual({ code: 0, out: "imported 3 item(s)\n", err: "" });
    const agents = await cli("agents", "list");
    expect(agents.out).toMatch(
      /^ADDRESS\s+NAME\s+MODEL\s+ENABLED\s+TOOLKITS\nsuzie@shopping\.example\.net\s+Suzie\s+demo\s+true\s+default\n$/,
    );
    expect(JSON.parse((await cli("rules", "list", "--json")).out)).toEqual(MINIMAL.accessRules);
  });

  it("round-trips export → wipe → import → export", async () => {
    const file = join(dir, "minimal2.json");
    writeFileSync(file, JSON.stringify(MINIMAL));
    await cli("admin", "import", file);
    await cli("agents", "add", "--address", "bob@shopping.example.net", "--name", "Bob", "--model", "demo");
    await cli(
      "toolkits",
      "add",
      "--id",
      "crm",
      "--tools",
      "lookup_order",
      "--agents",
      "bob@shopping.example.net",
    );
    await cli("approvers", "add", "--toolkit", "crm", "--address", "boss@shopping.example.net");
    const out = join(dir, "export.json");
    expect((await cli("admin", "export", "--out", out)).code).toBe(0);
    const first = readFileSync(out, "utf8");
    writeFileSync(join(dir, "empty.json"), "{}");
    expect((await cli("admin", "import", join(dir, "empty.json"), "--replace")).out).toMatch(
      /deleted 6 item/,
    );
    expect(JSON.parse((await cli("admin", "export")).out).agents).toEqual([]);
    expect((await cli("admin", "import", out)).code).toBe(0);
    expect((await cli("admin", "export")).out).toBe(first);
  });

  it("refuses an invalid document with the field named, exit 1, nothing written", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(
      file,
      JSON.stringify({ ...MINIMAL, accessRules: [{ agent: SUZIE, pattern: "Joe@X.com", effect: "allow" }] }),
    );
    const r = await cli("admin", "import", file);
    expect(r.code).toBe(1);
    expect(r.err).toContain("accessRules[0].pattern: must be lower-case");
    expect(JSON.parse((await cli("agents", "list", "--json")).out)).toEqual([]);
    writeFileSync(file, "{ not json");
    expect(await cli("admin", "import", file)).toMatchObject({
      code: 1,
      err: expect.stringContaining("not valid JSON"),
    });
  });
});

describe("postern agents/rules/toolkits/approvers", () => {
  it("adds an agent with the default toolkit and refuses a second add", async () => {
    const add = ["agents", "add", "--address", SUZIE, "--name", "Suzie", "--model", "demo"];
    expect(await cli(...add)).toMatchObject({
      code: 0,
      out: `added agent ${SUZIE} (attached to toolkit default)\n`,
    });
    expect(await cli(...add)).toMatchObject({ code: 1, err: expect.stringContaining("already exists") });
    expect(await cli(...add, "--replace", "--instructions", "Be brief.")).toMatchObject({ code: 0 });
    expect(JSON.parse((await cli("agents", "list", "--json")).out)[0].instructions).toBe("Be brief.");
    expect((await cli("toolkits", "list")).out).toContain(`default  send_email,read_email  ${SUZIE}`);
  });

  it("sets a toolkit's archive scope and egress hosts (G18), refusing a scope that does not exist", async () => {
    await cli("agents", "add", "--address", SUZIE, "--name", "Suzie", "--model", "demo");
    const add = ["toolkits", "add", "--id", "staff", "--tools", "search_emails", "--agents", SUZIE];
    expect(await cli(...add, "--archive-scope", "everyone")).toMatchObject({
      code: 1,
      err: expect.stringContaining('--archive-scope: Invalid option: expected one of "sender"|"agent"'),
    });
    expect(
      (await cli(...add, "--archive-scope", "agent", "--egress-hosts", "Allowed.example,docs.example")).code,
    ).toBe(0);
    const staff = JSON.parse((await cli("toolkits", "list", "--json")).out).find(
      (t: { id: string }) => t.id === "staff",
    );
    expect(staff).toMatchObject({ archiveScope: "agent", egressHosts: ["allowed.example", "docs.example"] });
    expect((await cli("toolkits", "list")).out).toMatch(/staff .* agent +allowed\.example,docs\.example/);
  });

  it("adds and removes rules, refusing rules for an unknown agent", async () => {
    await cli("agents", "add", "--address", SUZIE, "--name", "Suzie", "--model", "demo");
    const rule = ["--agent", SUZIE, "--pattern", "*@Evil.example", "--effect", "deny"];
    expect((await cli("rules", "add", ...rule)).out).toBe(`added deny *@evil.example for ${SUZIE}\n`);
    expect((await cli("rules", "list", "--agent", SUZIE)).out).toContain("deny    *@evil.example");
    expect(
      await cli("rules", "add", "--agent", "nobody@x.example", "--pattern", "a@b.com", "--effect", "allow"),
    ).toMatchObject({
      code: 1,
      err: "error: no agent nobody@x.example (add it with: agents add)\n",
    });
    expect((await cli("rules", "remove", ...rule)).code).toBe(0);
    expect((await cli("rules", "remove", ...rule)).code).toBe(1);
  });

  it("adds, lists and removes outbound rules, refusing rules for an unknown agent", async () => {
    await cli("agents", "add", "--address", SUZIE, "--name", "Suzie", "--model", "demo");
    const allow = ["--agent", SUZIE, "--pattern", "*@Partner.example", "--effect", "allow"];
    // Typed on the command line, lower-cased, and said so (the console and import refuse upper case instead).
    expect(await cli("outbound-rules", "add", ...allow)).toEqual({
      code: 0,
      out: `added outbound allow *@partner.example for ${SUZIE}\n`,
      err: 'note: --pattern lower-cased to "*@partner.example"\n',
    });
    await cli(
      "outbound-rules",
      "add",
      "--agent",
      SUZIE,
      "--pattern",
      "ceo@partner.example",
      "--effect",
      "deny",
    );
    expect((await cli("outbound-rules", "list", "--agent", SUZIE)).out).toMatch(
      /^AGENT\s+EFFECT\s+PATTERN\s+NOTE\n.*allow\s+\*@partner\.example.*\n.*deny\s+ceo@partner\.example/,
    );
    // Not the inbound rules: the two tables are separate.
    expect(JSON.parse((await cli("rules", "list", "--json")).out)).toEqual([]);
    const exported = JSON.parse((await cli("admin", "export")).out);
    expect(exported.outboundRules).toEqual([
      { agent: SUZIE, pattern: "*@partner.example", effect: "allow" },
      { agent: SUZIE, pattern: "ceo@partner.example", effect: "deny" },
    ]);
    expect(
      await cli(
        "outbound-rules",
        "add",
        "--agent",
        "nobody@x.example",
        "--pattern",
        "a@b.com",
        "--effect",
        "allow",
      ),
    ).toMatchObject({ code: 1, err: "error: no agent nobody@x.example (add it with: agents add)\n" });
    expect(
      (await cli("outbound-rules", "add", "--agent", SUZIE, "--pattern", "a@b.com", "--effect", "maybe"))
        .code,
    ).toBe(2);
    expect((await cli("outbound-rules", "remove", ...allow)).code).toBe(0);
    expect(await cli("outbound-rules", "remove", ...allow)).toMatchObject({
      code: 1,
      err: `error: no outbound allow rule *@partner.example for ${SUZIE}\n`,
    });
    expect(JSON.parse((await cli("outbound-rules", "list", "--json")).out)).toEqual([
      { agent: SUZIE, pattern: "ceo@partner.example", effect: "deny" },
    ]);
    await cli("agents", "remove", SUZIE);
    expect(JSON.parse((await cli("outbound-rules", "list", "--json")).out)).toEqual([]);
  });

  it("exits 2 on usage errors, before opening any target", async () => {
    expect(
      (await cli("rules", "add", "--agent", SUZIE, "--pattern", "a@b.com", "--effect", "maybe")).code,
    ).toBe(2);
    expect((await cli("agents", "add", "--address", SUZIE)).code).toBe(2);
    expect((await cli("agents", "frobnicate")).code).toBe(2);
    expect(opened).toEqual([]);
    const conflict = await cli("agents", "list", "--target", "local", "--resources", "r.json");
    expect(conflict).toMatchObject({ code: 2, err: expect.stringContaining("--resources") });
  });

  it("passes --resources through as an AWS target", async () => {
    expect((await cli("agents", "list", "--resources", "r.json")).code).toBe(0);
    expect(opened).toEqual(["aws"]);
  });
});

describe("refused admin writes: the field named, what would be valid, nothing written", () => {
  const exported = async () => (await cli("admin", "export")).out;

  it("agents add: a domain that is not registered and a model that is not in the catalog", async () => {
    const before = await exported();
    const r = await cli("agents", "add", "--address", "bad@other.com", "--name", "Bad", "--model", "gpt5");
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      [
        "error: agent bad@other.com not written:",
        '  --address: domain "other.com" is not registered; an agent\'s address must be at one of: shopping.example.net ("domains" in postern.config.json)',
        '  --model: no model "gpt5" in the catalog; one of: demo ("models" in postern.config.json)',
        "",
      ].join("\n"),
    );
    // Nothing written: not the agent, and not the default toolkit a new agent would be attached to.
    expect(await exported()).toBe(before);
  });

  it("toolkits add: a tool the registry does not hold", async () => {
    await cli("agents", "add", "--address", SUZIE, "--name", "Suzie", "--model", "demo");
    const before = await exported();
    const r = await cli(
      "toolkits",
      "add",
      "--id",
      "k",
      "--tools",
      "send_email,not_a_tool",
      "--agents",
      SUZIE,
    );
    expect(r).toMatchObject({
      code: 1,
      err: expect.stringMatching(
        /^error: toolkit k not written:\n {2}--tools: no tool "not_a_tool" in the registry; one of: .*issue_refund/,
      ),
    });
    expect(await exported()).toBe(before);
  });

  it("approvers add: an address no confirm card can reach, and an agent's own address", async () => {
    await cli("agents", "add", "--address", SUZIE, "--name", "Suzie", "--model", "demo");
    await cli("toolkits", "add", "--id", "refunds", "--tools", "issue_refund", "--agents", SUZIE);
    const before = await exported();
    expect(
      await cli("approvers", "add", "--toolkit", "refunds", "--address", "operator@localhost"),
    ).toMatchObject({
      code: 1,
      err: expect.stringContaining("--address: cannot receive a confirm card"),
    });
    expect(await cli("approvers", "add", "--toolkit", "refunds", "--address", SUZIE)).toMatchObject({
      code: 1,
      err: expect.stringContaining("--address: is an agent's address; agent mail can never confirm"),
    });
    expect(await exported()).toBe(before);
    expect(
      (await cli("approvers", "add", "--toolkit", "refunds", "--address", "operator@postern.test")).code,
    ).toBe(0);
  });

  it("admin import: an unknown list imports nothing and exits 1", async () => {
    const file = join(dir, "agentz.json");
    writeFileSync(file, JSON.stringify({ agentz: MINIMAL.agents }));
    const r = await cli("admin", "import", file);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      "  agentz: unknown list; an admin document has agents, accessRules, outboundRules, toolkits, responsibilities, approvers",
    );
    expect(JSON.parse(await exported()).agents).toEqual([]);
  });

  it("admin import: an unknown field and an upper-case address, both named", async () => {
    const file = join(dir, "bad-agent.json");
    writeFileSync(
      file,
      JSON.stringify({
        agents: [{ address: "Suzie@shopping.example.net", name: "Suzie", model: "demo", acceptBCC: true }],
      }),
    );
    const r = await cli("admin", "import", file);
    expect(r.code).toBe(1);
    expect(r.err).toContain("  agents[0].acceptBCC: unknown field; known fields: address, name, model,");
    expect(r.err).toContain('  agents[0].address: must be lower-case: "suzie@shopping.example.net"');
    expect(JSON.parse(await exported()).agents).toEqual([]);
  });

  it("admin import: a foreign domain, a model and a tool nobody offers, an unreachable approver", async () => {
    const file = join(dir, "bad-deployment.json");
    writeFileSync(
      file,
      JSON.stringify({
        agents: [{ address: "bad@other.com", name: "Bad", model: "gpt5" }],
        toolkits: [{ id: "k", tools: ["not_a_tool"] }],
        approvers: [{ toolkit: "k", address: "operator@localhost" }],
      }),
    );
    const r = await cli("admin", "import", file);
    expect(r.code).toBe(1);
    expect(r.err.split("\n").map((l) => l.split(":")[0])).toEqual([
      `error`,
      "  agents[0].address",
      "  agents[0].model",
      "  toolkits[0].tools[0]",
      "  approvers[0].address",
      "",
    ]);
    expect(JSON.parse(await exported())).toMatchObject({ agents: [], toolkits: [], approvers: [] });
  });

  it("checks writes against --config, reads need none, and AWS without a config refuses a write", async () => {
    const cfg = join(dir, "other.config.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        domains: ["agents.example.org"],
        models: [{ id: "local", provider: "scripted", script: "s.json", egress: "internal" }],
      }),
    );
    const add = [
      "agents",
      "add",
      "--address",
      "help@agents.example.org",
      "--name",
      "Help",
      "--model",
      "local",
    ];
    expect((await cliWith({}, ...add, "--config", cfg)).code).toBe(0);
    expect(
      await cliWith(
        {},
        "agents",
        "add",
        "--address",
        SUZIE,
        "--name",
        "S",
        "--model",
        "local",
        "--config",
        cfg,
      ),
    ).toMatchObject({
      code: 1,
      err: expect.stringContaining("one of: agents.example.org"),
    });
    expect((await cliWith({}, "agents", "list", "--resources", "r.json")).code).toBe(0);
    const aws = await cliWith(
      {},
      "approvers",
      "add",
      "--toolkit",
      "default",
      "--address",
      "a@b.example",
      "--resources",
      "r.json",
    );
    expect(aws).toMatchObject({ code: 1, err: expect.stringContaining("pass --config FILE") });
  });
});

describe("openTarget", () => {
  it("starts the emulators on the data dir when no stack runs, and the data persists", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "postern-target-")), "data");
    const t1 = await openTarget({ dataDir });
    expect(t1.kind).toBe("local-offline");
    await new AdminRepo({
      dynamo: t1.clients.dynamo,
      tables: t1.resources.tables,
      logger: silentLogger,
    }).importDocument(MINIMAL, { catalog });
    await t1.close();
    const t2 = await openTarget({ dataDir });
    const agents = await new AdminRepo({
      dynamo: t2.clients.dynamo,
      tables: t2.resources.tables,
      logger: silentLogger,
    }).listAgents();
    await t2.close();
    expect(agents.map((a) => a.address)).toEqual([SUZIE]);
  });

  it("uses a live stack from stack.json and never opens its data dir", async () => {
    const root = mkdtempSync(join(tmpdir(), "postern-live-"));
    const stack = { pid: process.pid, startedAt: new Date().toISOString(), resources: em.resources };
    writeFileSync(join(root, "stack.json"), JSON.stringify(stack));
    const t = await openTarget({ dataDir: join(root, "data") });
    expect(t.kind).toBe("local-running");
    expect(t.resources.endpoints?.dynamodb).toBe(em.resources.endpoints?.dynamodb);
    await t.close();
    // A dead pid means a crashed stack: fall back to in-process emulators.
    writeFileSync(join(root, "stack.json"), JSON.stringify({ ...stack, pid: 2 ** 22 + 12345 }));
    const t2 = await openTarget({ dataDir: join(root, "data") });
    expect(t2.kind).toBe("local-offline");
    await t2.close();
  });

  it("reads AWS resource names from a file and names what is wrong in a bad one", async () => {
    const tables = Object.fromEntries(Object.entries(em.resources.tables));
    const file = join(dir, "resources.json");
    writeFileSync(
      file,
      JSON.stringify({ tables, bucket: "b", queues: { verify: "v", agentStep: "a", outbound: "o" } }),
    );
    const t = await openTarget({ target: "aws", resourcesFile: file, env: { AWS_REGION: "eu-west-1" } });
    expect(t).toMatchObject({ kind: "aws", resources: { region: "eu-west-1", bucket: "b" } });
    expect(t.resources.endpoints).toBeUndefined();
    await t.close();
    writeFileSync(file, JSON.stringify({ tables: { ...tables, runs: "" }, bucket: "b", queues: {} }));
    await expect(openTarget({ target: "aws", resourcesFile: file })).rejects.toThrow(TargetError);
    await expect(openTarget({ target: "aws", resourcesFile: file })).rejects.toThrow(/tables\.runs/);
    await expect(openTarget({ target: "aws", env: {} })).rejects.toThrow(
      /POSTERN_TABLE_AGENTS|POSTERN_BUCKET/,
    );
  });
});
