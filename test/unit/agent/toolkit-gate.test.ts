import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { ToolkitItem } from "../../../shared/admin/schema.ts";
import {
  checkToolCall,
  type RunGateInput,
  type ToolGateReason,
  toolsForRun,
} from "../../../shared/agent/loop/toolkits.ts";
import { routingKey } from "../../../shared/gate/address.ts";
import { ToolRegistry } from "../../../shared/tool-framework/registry.ts";
import { defineTool, success, type Tool } from "../../../shared/tool-framework/tool.ts";
import { AGENT, kit } from "./dispatch-harness.ts";

/** G11 as a table: who may call `lookup` on this run, and through which toolkits. */

const OTHER_AGENT = "sales@agents.example.net";

function tool(name: string): Tool {
  return defineTool({
    name,
    description: `Test tool ${name}.`,
    summary: "test",
    input: z.object({}).strict(),
    egress: { kind: "structure" },
    sideEffects: { kind: "none" },
    use: async () => success({}),
  });
}
const registry = new ToolRegistry([tool("lookup"), tool("other")]);

/** A reply run from `address` as the gate proved it (routing key: lower-cased, +tag stripped), or a scheduled run. */
type RunSpec = { kind: "reply"; from: string | null } | { kind: "scheduled" };
function gate(run: RunSpec, toolkits: readonly ToolkitItem[]): RunGateInput {
  return {
    agent: AGENT,
    sender:
      run.kind === "reply" && run.from
        ? { address: run.from, routingKey: routingKey(run.from), displayName: "" }
        : null,
    kind: run.kind,
    toolkits,
    registry,
  };
}

type Expect = { allowed: true; via: string[] } | { allowed: false; reason: ToolGateReason };

interface Row {
  name: string;
  toolkits: ToolkitItem[];
  run: RunSpec;
  tool?: string;
  expect: Expect;
}

const reply = (from: string | null): RunSpec => ({ kind: "reply", from });
const scheduled: RunSpec = { kind: "scheduled" };
const allow = (pattern: string) => ({ pattern, effect: "allow" as const });
const deny = (pattern: string) => ({ pattern, effect: "deny" as const });

const rows: Row[] = [
  {
    name: "no toolkit: nothing, even for a registered tool",
    toolkits: [],
    run: reply("alice@example.com"),
    expect: { allowed: false, reason: "tool-not-granted" },
  },
  {
    name: "unregistered tool name",
    toolkits: [kit("k", ["lookup"])],
    run: reply("alice@example.com"),
    tool: "lookup_all",
    expect: { allowed: false, reason: "tool-unknown" },
  },
  {
    name: "toolkit holds the tool but is attached to another agent",
    toolkits: [kit("k", ["lookup"], { agents: [OTHER_AGENT] })],
    run: reply("alice@example.com"),
    expect: { allowed: false, reason: "tool-not-granted" },
  },
  {
    name: "toolkit attached to the agent but holding other tools",
    toolkits: [kit("k", ["other"])],
    run: reply("alice@example.com"),
    expect: { allowed: false, reason: "tool-not-granted" },
  },
  {
    name: "no sender rules: every admitted sender",
    toolkits: [kit("k", ["lookup"])],
    run: reply("anyone@elsewhere.example"),
    expect: { allowed: true, via: ["k"] },
  },
  {
    name: "allow list: the listed sender",
    toolkits: [kit("k", ["lookup"], { senderRules: [allow("staff@example.com")] })],
    run: reply("staff@example.com"),
    expect: { allowed: true, via: ["k"] },
  },
  {
    name: "allow list: an unlisted sender",
    toolkits: [kit("k", ["lookup"], { senderRules: [allow("staff@example.com")] })],
    run: reply("alice@example.com"),
    expect: { allowed: false, reason: "tool-sender-denied" },
  },
  {
    name: "deny rule: the denied sender",
    toolkits: [kit("k", ["lookup"], { senderRules: [deny("mallory@example.com")] })],
    run: reply("mallory@example.com"),
    expect: { allowed: false, reason: "tool-sender-denied" },
  },
  {
    name: "deny rule: anyone else",
    toolkits: [kit("k", ["lookup"], { senderRules: [deny("mallory@example.com")] })],
    run: reply("alice@example.com"),
    expect: { allowed: true, via: ["k"] },
  },
  {
    name: "wildcard allow: a sender of the domain",
    toolkits: [kit("k", ["lookup"], { senderRules: [allow("*@example.com")] })],
    run: reply("bob@example.com"),
    expect: { allowed: true, via: ["k"] },
  },
  {
    name: "wildcard allow: a look-alike subdomain is not the domain",
    toolkits: [kit("k", ["lookup"], { senderRules: [allow("*@example.com")] })],
    run: reply("bob@evil-example.com.attacker.example"),
    expect: { allowed: false, reason: "tool-sender-denied" },
  },
  {
    name: "deny beats allow inside one gate",
    toolkits: [kit("k", ["lookup"], { senderRules: [allow("*@example.com"), deny("eve@example.com")] })],
    run: reply("eve@example.com"),
    expect: { allowed: false, reason: "tool-sender-denied" },
  },
  {
    name: "+tag and capitals do not dodge a deny rule (routing key)",
    toolkits: [kit("k", ["lookup"], { senderRules: [deny("ceo@thescoop.com")] })],
    run: reply("Ceo+finance@TheScoop.com"),
    expect: { allowed: false, reason: "tool-sender-denied" },
  },
  {
    name: "+tag and capitals still match an allow rule (routing key)",
    toolkits: [kit("k", ["lookup"], { senderRules: [allow("staff@example.com")] })],
    run: reply("STAFF+urgent@Example.com"),
    expect: { allowed: true, via: ["k"] },
  },
  {
    name: "a reply run without a proven sender gets nothing",
    toolkits: [kit("k", ["lookup"])],
    run: reply(null),
    expect: { allowed: false, reason: "tool-sender-denied" },
  },
  {
    name: "scheduled run, flag off (the default)",
    toolkits: [kit("k", ["lookup"])],
    run: scheduled,
    expect: { allowed: false, reason: "tool-not-scheduled" },
  },
  {
    name: "scheduled run, flag on",
    toolkits: [kit("k", ["lookup"], { allowScheduled: true })],
    run: scheduled,
    expect: { allowed: true, via: ["k"] },
  },
  {
    name: "scheduled flag does not attach a toolkit to another agent's runs",
    toolkits: [kit("k", ["lookup"], { allowScheduled: true, agents: [OTHER_AGENT] })],
    run: scheduled,
    expect: { allowed: false, reason: "tool-not-granted" },
  },
  {
    name: "two toolkits hold the tool: one admits the sender, only it is named",
    toolkits: [
      kit("staff-only", ["lookup"], { senderRules: [allow("staff@example.com")] }),
      kit("customers", ["lookup"], { senderRules: [allow("*@customer.example")] }),
    ],
    run: reply("carol@customer.example"),
    expect: { allowed: true, via: ["customers"] },
  },
  {
    name: "two toolkits hold the tool: both admit, both are named",
    toolkits: [kit("a", ["lookup"]), kit("b", ["lookup", "other"])],
    run: reply("alice@example.com"),
    expect: { allowed: true, via: ["a", "b"] },
  },
  {
    name: "two toolkits hold the tool: neither admits",
    toolkits: [
      kit("a", ["lookup"], { senderRules: [deny("alice@example.com")] }),
      kit("b", ["lookup"], { senderRules: [allow("staff@example.com")] }),
    ],
    run: reply("alice@example.com"),
    expect: { allowed: false, reason: "tool-sender-denied" },
  },
  {
    name: "two toolkits on a scheduled run: only the opted-in one admits",
    toolkits: [kit("a", ["lookup"]), kit("b", ["lookup"], { allowScheduled: true })],
    run: scheduled,
    expect: { allowed: true, via: ["b"] },
  },
];

describe("toolkit gate (G11)", () => {
  it.each(rows)("$name", (row) => {
    const input = gate(row.run, row.toolkits);
    const name = row.tool ?? "lookup";
    const decision = checkToolCall(input, name);
    if (row.expect.allowed) {
      expect(decision).toMatchObject({ ok: true, toolkits: row.expect.via });
      expect(decision.ok && decision.tool.name).toBe(name);
    } else {
      expect(decision).toEqual({ ok: false, reason: row.expect.reason });
    }
    // What is offered and what dispatch admits are the same decision: a tool is offered iff it may be called.
    expect(toolsForRun(input).some((t) => t.name === name)).toBe(row.expect.allowed);
  });

  it("a staff member replying inside a customer's thread unlocks the tools for that run only", () => {
    const toolkits = [kit("staff", ["lookup"], { senderRules: [allow("*@staff.example")] })];
    // The same thread, three runs in order: the customer's mail, staff's reply in it, the customer again. Each
    // run's sender is the proven author of the mail that started it; nothing carries over between runs.
    const customer = reply("carol@customer.example");
    const staff = reply("dana@staff.example");
    expect(toolsForRun(gate(customer, toolkits)).map((t) => t.name)).toEqual([]);
    expect(toolsForRun(gate(staff, toolkits)).map((t) => t.name)).toEqual(["lookup"]);
    expect(checkToolCall(gate(staff, toolkits), "lookup")).toMatchObject({ ok: true });
    expect(checkToolCall(gate(customer, toolkits), "lookup")).toEqual({
      ok: false,
      reason: "tool-sender-denied",
    });
    expect(toolsForRun(gate(customer, toolkits)).map((t) => t.name)).toEqual([]);
  });

  it("offers tools sorted by name, and only the admitted ones", () => {
    const toolkits = [kit("k", ["other", "lookup"]), kit("s", ["lookup"], { allowScheduled: true })];
    expect(toolsForRun(gate(reply("alice@example.com"), toolkits)).map((t) => t.name)).toEqual([
      "lookup",
      "other",
    ]);
    expect(toolsForRun(gate(scheduled, toolkits)).map((t) => t.name)).toEqual(["lookup"]);
  });
});
