import { DeleteCommand, PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import { TABLES } from "../../shared/config/tables.ts";
import { ADMIN_SNAPSHOT_MAX_AGE_MS, ADMIN_VERSION_KEY, AdminRepo } from "../../shared/store/admin-repo.ts";
import { type RecordingLogger, recordingLogger } from "../fakes/recording-logger.ts";
import { testCatalog } from "../helpers/admin-catalog.ts";

const SUZIE = "suzie@shopping.example.net";
const BOB = "bob@shopping.example.net";
const catalog = testCatalog();
const MINIMAL = {
  agents: [{ address: SUZIE, name: "Suzie", model: "demo" }],
  accessRules: [{ agent: SUZIE, pattern: "joe@football.example.com", effect: "allow" }],
  toolkits: [{ id: "default", tools: ["send_email"], agents: [SUZIE] }],
};

let em: Emulators;
let clients: AwsClients;
let logger: RecordingLogger;
/** What the repository logged, as `level message` lines. */
const lines = () => logger.text({ fields: false });
let repo: AdminRepo;

const ADMIN = [
  "agents",
  "accessRules",
  "outboundRules",
  "toolkits",
  "responsibilities",
  "approvers",
] as const;

async function wipe(): Promise<void> {
  for (const t of ADMIN) {
    const table = em.resources.tables[t];
    const spec = TABLES[t] as { partitionKey: string; sortKey?: string };
    const items = (await clients.dynamo.send(new ScanCommand({ TableName: table }))).Items ?? [];
    for (const it of items) {
      const Key: Record<string, unknown> = { [spec.partitionKey]: it[spec.partitionKey] };
      if (spec.sortKey) Key[spec.sortKey] = it[spec.sortKey];
      await clients.dynamo.send(new DeleteCommand({ TableName: table, Key }));
    }
  }
  // The wipe goes around the repository: reset the admin version too, so cached snapshots reload.
  await clients.dynamo.send(
    new DeleteCommand({ TableName: em.resources.tables.state, Key: ADMIN_VERSION_KEY }),
  );
}

const putRaw = (table: (typeof ADMIN)[number], item: Record<string, unknown>) =>
  clients.dynamo.send(new PutCommand({ TableName: em.resources.tables[table], Item: item }));

beforeAll(async () => {
  em = await startEmulators();
  clients = makeClients(em.resources);
});
afterAll(async () => {
  clients.dynamo.destroy();
  await em.stop();
});
beforeEach(async () => {
  await wipe();
  logger = recordingLogger();
  repo = new AdminRepo({ dynamo: clients.dynamo, tables: em.resources.tables, logger });
});

describe("AdminRepo writes", () => {
  it("attaches a new agent to the default toolkit, creating it as a system toolkit", async () => {
    const r = await repo.putAgent({ address: SUZIE, name: "Suzie", model: "demo" });
    expect(r).toMatchObject({ ok: true, created: true });
    const kit = await repo.getToolkit("default");
    expect(kit).toMatchObject({ tools: ["send_email", "read_email"], agents: [SUZIE], system: true });
    await repo.putAgent({ address: BOB, name: "Bob", model: "demo" });
    expect((await repo.getToolkit("default"))?.agents).toEqual([SUZIE, BOB]);
  });

  it("does not re-attach an existing agent that was detached (replace is not creation)", async () => {
    await repo.putAgent({ address: SUZIE, name: "Suzie", model: "demo" });
    await repo.detachAgent("default", SUZIE);
    const r = await repo.putAgent({ address: SUZIE, name: "Suzie 2", model: "demo" });
    expect(r).toMatchObject({ ok: true, created: false });
    expect((await repo.getToolkit("default"))?.agents).toEqual([]);
  });

  it("refuses a duplicate with ifAbsent and an invalid item with its field named", async () => {
    await repo.putAgent({ address: SUZIE, name: "Suzie", model: "demo" });
    expect(await repo.putAgent({ address: SUZIE, name: "X", model: "demo" }, { ifAbsent: true })).toEqual({
      ok: false,
      reason: "duplicate",
    });
    const bad = await repo.putAgent({ address: "Suzie@Shopping.example.net", name: "S", model: "demo" });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.reason === "invalid" && bad.issues[0]?.path).toBe("address");
    expect(await repo.getAgent("Suzie@Shopping.example.net")).toBeNull();
  });

  it("cascades an agent's removal to its rules and toolkit memberships", async () => {
    await repo.putAgent({ address: SUZIE, name: "Suzie", model: "demo" });
    await repo.putAgent({ address: BOB, name: "Bob", model: "demo" });
    await repo.putAccessRule({ agent: SUZIE, pattern: "*@example.com", effect: "allow" });
    await repo.putOutboundRule({ agent: SUZIE, pattern: "*@partner.example", effect: "allow" });
    await repo.putOutboundRule({ agent: BOB, pattern: "*@partner.example", effect: "allow" });
    expect(await repo.deleteAgent(SUZIE, { cascade: true })).toBe(true);
    expect(await repo.listAccessRules(SUZIE)).toEqual([]);
    // A re-added address must not inherit the old agent's reach.
    expect(await repo.listOutboundRules()).toEqual([
      { agent: BOB, pattern: "*@partner.example", effect: "allow" },
    ]);
    expect((await repo.getToolkit("default"))?.agents).toEqual([BOB]);
    expect(await repo.deleteAgent(SUZIE)).toBe(false);
  });
});

describe("AdminRepo reads fail closed", () => {
  it("skips an invalid agent and logs table, key and the zod problem", async () => {
    await putRaw("agents", { address: SUZIE, name: "Suzie", model: "demo", enabled: "yes" });
    await repo.putAgent({ address: BOB, name: "Bob", model: "demo" });
    expect(await repo.getAgent(SUZIE)).toBeNull();
    expect((await repo.listAgents()).map((a) => a.address)).toEqual([BOB]);
    const line = lines().find((l) => l.includes("table=agents"));
    expect(line).toContain(`address="${SUZIE}"`);
    expect(line).toContain("enabled:");
  });

  it("drops an invalid allow rule: that sender is simply not allowed", async () => {
    await repo.putAccessRule({ agent: SUZIE, pattern: "ann@example.com", effect: "allow" });
    await putRaw("accessRules", {
      agent: SUZIE,
      rule: "allow#Joe@X.com",
      pattern: "Joe@X.com",
      effect: "allow",
    });
    expect(await repo.listAccessRules(SUZIE)).toEqual([
      { agent: SUZIE, pattern: "ann@example.com", effect: "allow" },
    ]);
    expect(
      lines().some(
        (l) => l.startsWith("warn") && l.includes("table=accessRules") && l.includes("lower-case"),
      ),
    ).toBe(true);
  });

  it("turns an invalid deny rule into deny-all for its agent (dropping it would widen access)", async () => {
    await repo.putAccessRule({ agent: SUZIE, pattern: "*@example.com", effect: "allow" });
    await putRaw("accessRules", {
      agent: SUZIE,
      rule: "deny#*@EVIL.example",
      pattern: "*@EVIL.example",
      effect: "deny",
    });
    const rules = await repo.listAccessRules(SUZIE);
    expect(rules).toContainEqual(expect.objectContaining({ agent: SUZIE, pattern: "*", effect: "deny" }));
    expect(lines().some((l) => l.startsWith("error") && l.includes("refuses every sender"))).toBe(true);
    const snap = await repo.snapshot();
    expect(snap.accessRules.filter((r) => r.effect === "deny" && r.pattern === "*")).toHaveLength(1);
  });

  it("treats a rule whose effect is unreadable, or whose key disagrees with it, as a possible deny", async () => {
    await putRaw("accessRules", { agent: SUZIE, rule: "deny#x@y.com", pattern: "x@y.com", effect: "Deny" });
    await putRaw("accessRules", { agent: BOB, rule: "deny#x@y.com", pattern: "x@y.com", effect: "allow" });
    const rules = await repo.listAccessRules();
    expect(
      rules
        .filter((r) => r.pattern === "*" && r.effect === "deny")
        .map((r) => r.agent)
        .sort(),
    ).toEqual([BOB, SUZIE]);
  });

  it("binds an invalid deny with a mixed-case agent key to the lower-cased agent", async () => {
    await putRaw("accessRules", {
      agent: "Suzie@Shopping.example.net",
      rule: "deny#a@b.com",
      pattern: "a@b.com",
      effect: "deny",
    });
    expect(await repo.listAccessRules()).toEqual([expect.objectContaining({ agent: SUZIE, pattern: "*" })]);
  });

  it("skips an invalid toolkit, so its tools are granted to nobody", async () => {
    await putRaw("toolkits", { id: "crm", tools: ["Lookup Customer"], agents: [SUZIE] });
    expect(await repo.listToolkits()).toEqual([]);
    expect(lines().some((l) => l.includes("table=toolkits") && l.includes('id="crm"'))).toBe(true);
  });
});

describe("admin documents", () => {
  it("imports the issue's minimal document", async () => {
    expect(await repo.importDocument(MINIMAL, { catalog })).toEqual({ ok: true, written: 3, deleted: 0 });
    const snap = await repo.snapshot();
    expect(snap.agents.map((a) => a.address)).toEqual([SUZIE]);
    expect(snap.accessRules).toEqual([MINIMAL.accessRules[0]]);
  });

  it("round-trips: export, wipe, import, export again is equal", async () => {
    await repo.importDocument(
      {
        ...MINIMAL,
        agents: [...MINIMAL.agents, { address: BOB, name: "Bob", model: "demo", maxToolTurns: 3 }],
        accessRules: [...MINIMAL.accessRules, { agent: BOB, pattern: "*@evil.example", effect: "deny" }],
        outboundRules: [
          { agent: BOB, pattern: "*@partner.example", effect: "allow" },
          { agent: BOB, pattern: "ceo@partner.example", effect: "deny" },
        ],
        toolkits: [
          ...MINIMAL.toolkits,
          { id: "crm", tools: ["lookup_order"], agents: [BOB], allowScheduled: true },
        ],
        responsibilities: [{ id: "daily", agent: BOB, schedule: "rate(1 day)", prompt: "Summarise." }],
        approvers: [{ toolkit: "crm", address: "boss@partner.example" }],
      },
      { catalog },
    );
    const first = await repo.exportDocument();
    await wipe();
    expect((await repo.exportDocument()).agents).toEqual([]);
    expect(first.outboundRules).toHaveLength(2);
    expect(await repo.importDocument(first, { catalog })).toMatchObject({ ok: true, written: 10 });
    expect(await repo.exportDocument()).toEqual(first);
  });

  it("refuses an invalid document naming item path and field, and writes nothing", async () => {
    const r = await repo.importDocument(
      { ...MINIMAL, toolkits: [{ id: "default", tools: ["send_email", "Bad Tool"], agents: [SUZIE] }] },
      { catalog },
    );
    expect(r).toMatchObject({ ok: false, reason: "invalid-document" });
    expect(!r.ok && r.issues).toEqual([
      { path: "toolkits[0].tools[1]", message: "must be a snake_case tool name" },
    ]);
    expect(await repo.exportDocument()).toEqual({
      agents: [],
      accessRules: [],
      outboundRules: [],
      toolkits: [],
      responsibilities: [],
      approvers: [],
      webhooks: [],
      mcpServers: [],
    });
  });

  it("refuses dangling references and duplicate keys", async () => {
    const r = await repo.importDocument(
      {
        agents: [MINIMAL.agents[0], MINIMAL.agents[0]],
        accessRules: [{ agent: "suzy@shopping.example.net", pattern: "*@evil.example", effect: "deny" }],
        approvers: [{ toolkit: "nope", address: "a@b.com" }],
      },
      { catalog },
    );
    expect(!r.ok && r.issues.map((i) => i.path)).toEqual([
      "agents[1].address",
      "accessRules[0].agent",
      "approvers[0].toolkit",
    ]);
    expect(await repo.listAgents()).toEqual([]);
  });

  it("with replace, deletes what the document does not hold (invalid items too)", async () => {
    await repo.importDocument(MINIMAL, { catalog });
    await repo.putAgent({ address: BOB, name: "Bob", model: "demo" });
    await putRaw("accessRules", { agent: SUZIE, rule: "deny#junk", effect: "deny" });
    await putRaw("outboundRules", { agent: SUZIE, rule: "allow#junk", effect: "allow" });
    const r = await repo.importDocument(MINIMAL, { replace: true, catalog });
    expect(r).toEqual({ ok: true, written: 3, deleted: 3 });
    expect((await repo.listAgents()).map((a) => a.address)).toEqual([SUZIE]);
    expect(await repo.listAccessRules()).toEqual([MINIMAL.accessRules[0]]);
    expect(await repo.listOutboundRules()).toEqual([]);
  });

  it("an invalid outbound rule, even an allow, locks its agent to a reply's own participants", async () => {
    await repo.putAgent({ address: SUZIE, name: "Suzie", model: "demo" });
    await repo.putOutboundRule({ agent: SUZIE, pattern: "*@partner.example", effect: "allow" });
    await putRaw("outboundRules", {
      agent: SUZIE,
      rule: "allow#Bob@x.example",
      effect: "allow",
      pattern: "Bob@x.example",
    });
    const snap = await repo.snapshot();
    expect(snap.outboundRules).toEqual([
      { agent: SUZIE, pattern: "*@partner.example", effect: "allow" },
      { agent: SUZIE, pattern: "*", effect: "deny", failClosedFor: "allow#Bob@x.example" },
    ]);
    expect(lines().join("\n")).toContain("invalid outbound rule");
  });

  it("without replace, references may point at items already stored", async () => {
    await repo.importDocument(MINIMAL, { catalog });
    const r = await repo.importDocument(
      { accessRules: [{ agent: SUZIE, pattern: "*@evil.example", effect: "deny" }] },
      { catalog },
    );
    expect(r).toEqual({ ok: true, written: 1, deleted: 0 });
  });

  it("a field Postern does not know: exported as stored, kept by an import over it, never added by one", async () => {
    await repo.importDocument(MINIMAL, { catalog });
    // Written around these tools (or by another version): read and exported, never interpreted.
    await putRaw("agents", { ...MINIMAL.agents[0], custom: "kept" });
    const doc = await repo.exportDocument();
    expect(doc.agents[0]?.custom).toBe("kept");
    expect(await repo.importDocument(doc, { catalog })).toMatchObject({ ok: true });
    expect((await repo.exportDocument()).agents[0]?.custom).toBe("kept");
    await wipe();
    const r = await repo.importDocument(doc, { catalog });
    expect(!r.ok && r.issues.map((i) => i.path)).toEqual(["agents[0].custom"]);
    expect(await repo.listAgents()).toEqual([]);
  });
});

describe("AdminRepo snapshots (read once per admin change, not per mail)", () => {
  it("another container's write is seen at once; an edit around the repository within the maximum age", async () => {
    let now = new Date("2026-11-30T12:00:00Z");
    const reader = new AdminRepo({
      dynamo: clients.dynamo,
      tables: em.resources.tables,
      logger,
      now: () => now,
    });
    await repo.importDocument(MINIMAL, { catalog });
    expect((await reader.snapshot()).accessRules).toHaveLength(1);
    // A second container (the CLI, the console) denies a sender: the version moved, the reader reloads.
    await repo.putAccessRule({ agent: SUZIE, pattern: "*@evil.example", effect: "deny" });
    expect((await reader.snapshot()).accessRules.map((r) => r.effect).sort()).toEqual(["allow", "deny"]);
    // An edit straight in DynamoDB moves no version: the cached snapshot holds until its maximum age.
    await putRaw("accessRules", {
      agent: SUZIE,
      rule: "deny#*@worse.example",
      pattern: "*@worse.example",
      effect: "deny",
    });
    expect((await reader.snapshot()).accessRules).toHaveLength(2);
    now = new Date(now.getTime() + ADMIN_SNAPSHOT_MAX_AGE_MS);
    expect((await reader.snapshot()).accessRules).toHaveLength(3);
  });
});
