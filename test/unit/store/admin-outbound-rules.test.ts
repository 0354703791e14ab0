import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkDocument } from "../../../shared/admin/document.ts";
import {
  type AdminTable,
  readAccessRules,
  readAgents,
  readApprovers,
  readOutboundRules,
  readResponsibilities,
  readToolkits,
  ruleKey,
} from "../../../shared/admin/read.ts";
import { type AdminTables, exportAdminDocument, importAdminDocument } from "../../../shared/admin/sync.ts";
import { TABLES } from "../../../shared/config/tables.ts";
import { outboundAllowed } from "../../../shared/gate/outbound-reach.ts";
import type { Item } from "../../../shared/ports/state.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { EMPTY_ADMIN, testCatalog } from "../../helpers/admin-catalog.ts";

/**
 * Outbound rules as admin state: validated on read and failing closed, checked as part of a document,
 * and imported in an order that never lets mail out further than the state before or the state after.
 */

const A = "suzie@shopping.example.net";
const DOMAINS = ["shopping.example.net"];
const valid = (effect: "allow" | "deny", pattern: string, agent = A) => ({
  agent,
  rule: ruleKey(effect, pattern),
  effect,
  pattern,
});

describe("readOutboundRules", () => {
  it("returns valid rules without the storage key", () => {
    expect(readOutboundRules([valid("allow", "*@partner.example")], recordingLogger())).toEqual([
      { agent: A, pattern: "*@partner.example", effect: "allow" },
    ]);
  });

  it("replaces ANY invalid rule, an allow too, by one deny-all for its agent, logged with table and key", () => {
    // An allow is not safe to drop here: an agent whose only allow rule vanished would fall back to the
    // registered-domain default, which this allow list did not include.
    for (const bad of [
      { ...valid("allow", "Bob@partner.example") },
      { ...valid("deny", "*@evil.example"), rule: "allow#*@evil.example" },
      { agent: "Suzie@Shopping.example.net", rule: "deny#x", effect: "deny", pattern: "x y" },
    ]) {
      const log = recordingLogger();
      const rules = readOutboundRules([valid("allow", "*@partner.example"), bad], log);
      expect(rules).toEqual([
        { agent: A, pattern: "*@partner.example", effect: "allow" },
        { agent: A, pattern: "*", effect: "deny", failClosedFor: bad.rule },
      ]);
      expect(log.text({ fields: false })[0]).toMatch(
        /^error invalid outbound rule: agent suzie@shopping\.example\.net now writes only to a reply's own participants: table=outboundRules/,
      );
      // A scheduled run's wider default is the one a dropped allow would fall back to; it is closed too.
      expect(outboundAllowed(rules, DOMAINS, "schedule", "bob@partner.example")).toBe(false);
    }
  });

  it("ignores a broken rule whose key cannot name any agent", () => {
    const log = recordingLogger();
    expect(
      readOutboundRules([{ agent: "nobody", rule: "deny#x", effect: "deny", pattern: "x" }], log),
    ).toEqual([]);
    expect(log.text({ fields: false })[0]).toContain("binds nobody");
  });
});

describe("outbound rules in an admin document", () => {
  const none = { catalog: testCatalog(), stored: EMPTY_ADMIN };
  it("refuses a rule for an agent that will not exist, and the same rule twice", () => {
    const rule = { agent: A, pattern: "*@partner.example", effect: "allow" };
    expect(checkDocument({ outboundRules: [rule] }, none)).toEqual({
      ok: false,
      reason: "invalid-document",
      issues: [{ path: "outboundRules[0].agent", message: `no agent ${A} (add it under "agents")` }],
    });
    const twice = checkDocument(
      { agents: [{ address: A, name: "S", model: "demo" }], outboundRules: [rule, rule] },
      none,
    );
    expect(!twice.ok && twice.issues).toEqual([
      { path: "outboundRules[1].pattern", message: "duplicate of outboundRules[0]" },
    ]);
  });

  it("validates patterns like access rules", () => {
    const r = checkDocument(
      {
        agents: [{ address: A, name: "S", model: "demo" }],
        outboundRules: [{ agent: A, pattern: "Bob@X.example", effect: "allow" }],
      },
      none,
    );
    expect(!r.ok && r.issues.map((i) => i.path)).toEqual(["outboundRules[0].pattern"]);
  });
});

/** The admin tables in memory, with a hook after every write and delete (AdminTables is the port import uses). */
function memoryTables(onChange: (tables: MemoryTables) => void = () => {}) {
  const data = new Map<AdminTable, Map<string, Item>>();
  const keyOf = (table: AdminTable, item: Item) => {
    const spec = TABLES[table] as { partitionKey: string; sortKey?: string };
    return `${String(item[spec.partitionKey])}\n${spec.sortKey ? String(item[spec.sortKey]) : ""}`;
  };
  const rows = (table: AdminTable) => {
    const m = data.get(table) ?? new Map<string, Item>();
    data.set(table, m);
    return m;
  };
  const logger = recordingLogger();
  const tables = {
    logger,
    ops: [] as string[],
    async snapshot() {
      const items = (t: AdminTable) => [...rows(t).values()];
      return {
        agents: readAgents(items("agents"), logger),
        accessRules: readAccessRules(items("accessRules"), logger),
        outboundRules: readOutboundRules(items("outboundRules"), logger),
        toolkits: readToolkits(items("toolkits"), logger),
        responsibilities: readResponsibilities(items("responsibilities"), logger),
        approvers: readApprovers(items("approvers"), logger),
        webhooks: [],
        mcpServers: [],
      };
    },
    async rawItems(table: AdminTable) {
      return [...rows(table).values()].map((i) => ({ ...i }));
    },
    async rawPut(table: AdminTable, item: Item) {
      const k = keyOf(table, item);
      const created = !rows(table).has(k);
      rows(table).set(k, { ...item });
      tables.ops.push(`put ${table} ${String(item.rule ?? item.address ?? item.id)}`);
      onChange(tables);
      return created;
    },
    async rawDelete(table: AdminTable, key: Item) {
      const had = rows(table).delete(keyOf(table, key));
      tables.ops.push(`delete ${table} ${String(key.rule ?? key.address ?? key.id)}`);
      onChange(tables);
      return had;
    },
    outbound: () => readOutboundRules([...rows("outboundRules").values()], logger),
  } satisfies AdminTables & Record<string, unknown>;
  return tables;
}
type MemoryTables = ReturnType<typeof memoryTables>;

describe("import and export of outbound rules", () => {
  const catalog = testCatalog();
  const agentItem = { address: A, name: "Suzie", model: "demo" };

  it("exports them in a stable order and imports them back", async () => {
    const t = memoryTables();
    const doc = {
      agents: [agentItem],
      outboundRules: [
        { agent: A, pattern: "*@partner.example", effect: "allow" },
        { agent: A, pattern: "ceo@partner.example", effect: "deny" },
      ],
    };
    expect(await importAdminDocument(t, doc, { catalog })).toEqual({ ok: true, written: 3, deleted: 0 });
    const out = await exportAdminDocument(t);
    expect(out.outboundRules).toEqual([
      { agent: A, pattern: "*@partner.example", effect: "allow" },
      { agent: A, pattern: "ceo@partner.example", effect: "deny" },
    ]);
    const again = memoryTables();
    await importAdminDocument(again, out, { catalog });
    expect(await exportAdminDocument(again)).toEqual(out);
  });

  it("writes deny rules before allow rules, and with replace deletes stale allows before stale denies", async () => {
    const t = memoryTables();
    await importAdminDocument(
      t,
      {
        agents: [agentItem],
        outboundRules: [
          { agent: A, pattern: "*@old.example", effect: "allow" },
          { agent: A, pattern: "ceo@old.example", effect: "deny" },
        ],
      },
      { catalog },
    );
    t.ops.length = 0;
    await importAdminDocument(
      t,
      {
        agents: [agentItem],
        outboundRules: [
          { agent: A, pattern: "*@partner.example", effect: "allow" },
          { agent: A, pattern: "ceo@partner.example", effect: "deny" },
        ],
      },
      { replace: true, catalog },
    );
    expect(t.ops.filter((o) => o.includes("outboundRules"))).toEqual([
      "put outboundRules deny#ceo@partner.example",
      "put outboundRules allow#*@partner.example",
      "delete outboundRules allow#*@old.example",
      "delete outboundRules deny#ceo@old.example",
    ]);
  });

  // There are no transactions: every state an import passes through must let mail out no further than the
  // state before it or the state after it, for every address (property).
  it("never lets mail out further than the start or the end state (property)", async () => {
    const pattern = fc.constantFrom(
      "*",
      "*@partner.example",
      "ceo@partner.example",
      "*@shopping.example.net",
      "ops@shopping.example.net",
      "*@evil.example",
    );
    const rules = fc.uniqueArray(
      fc.record({ pattern, effect: fc.constantFrom("allow" as const, "deny" as const) }),
      { maxLength: 5, selector: (r) => `${r.effect}#${r.pattern}` },
    );
    const addresses = [
      "ceo@partner.example",
      "bob@partner.example",
      "ops@shopping.example.net",
      "joe@shopping.example.net",
      "attacker@evil.example",
      "x@elsewhere.example",
    ];
    await fc.assert(
      fc.asyncProperty(rules, rules, async (start, end) => {
        // Both defaults (a sender's run: none; a scheduled run: the registered domains) stay closed mid-import.
        const reach = (rs: readonly { pattern: string; effect: "allow" | "deny" }[]) =>
          new Set(
            (["sender", "schedule"] as const).flatMap((by) =>
              addresses.filter((a) => outboundAllowed(rs, DOMAINS, by, a)).map((a) => `${by}:${a}`),
            ),
          );
        const before = reach(start);
        const after = reach(end);
        let armed = false;
        const t = memoryTables((tables) => {
          if (armed)
            for (const a of reach(tables.outbound()))
              if (!before.has(a) && !after.has(a))
                throw new Error(`mail to ${a} was open mid-import: ${tables.ops.join("; ")}`);
        });
        await importAdminDocument(
          t,
          { agents: [agentItem], outboundRules: start.map((r) => ({ agent: A, ...r })) },
          { catalog },
        );
        t.ops.length = 0;
        armed = true;
        const r = await importAdminDocument(
          t,
          { agents: [agentItem], outboundRules: end.map((r) => ({ agent: A, ...r })) },
          { replace: true, catalog },
        );
        expect(r.ok).toBe(true);
        expect(reach(t.outbound())).toEqual(after);
      }),
    );
  });
});
