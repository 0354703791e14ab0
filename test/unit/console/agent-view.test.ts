import { describe, expect, it } from "vitest";
import { agentView } from "../../../console/views/agents.ts";
import type { McpServerItem } from "../../../shared/admin/index.ts";
import { mcpServerItem } from "../../../shared/admin/index.ts";
import { defaultRegistry } from "../../../tools/index.ts";
import { AGENT, agent, config, toolkit } from "../../fakes/builders.ts";

const server = (over: Partial<McpServerItem> = {}): McpServerItem =>
  mcpServerItem.parse({
    id: "orders",
    transport: "http",
    url: "https://mcp.example.com/mcp",
    tools: [
      {
        name: "lookupOrder",
        exposedAs: "orders_lookup_order",
        class: "read",
        description: "Looks up an order",
        inputSchema: { type: "object" },
        hash: "a".repeat(64),
        reviewedAt: "2026-11-01T00:00:00Z",
      },
    ],
    ...over,
  });

const render = (tools: string[], mcpServers: readonly McpServerItem[]) =>
  agentView(
    {
      agent: agent(),
      today: { runs: 0, tokens: 0 },
      toolkits: [toolkit("kit", tools, { agents: [AGENT] })],
      rules: [],
      outboundRules: [],
      approvers: [],
      responsibilities: [],
      threads: { items: [], next: null },
      runs: { items: [], next: null },
      deliveryEvents: [],
      mcpServers,
    },
    config(),
    defaultRegistry(),
  ).toString();

const rowOf = (page: string, name: string) =>
  page.match(new RegExp(`<tr><td><code>${name}</code></td>[\\s\\S]*?</tr>`))?.[0] ?? "";

describe("the agent page's toolkits (issue 31 item 7, finding 1)", () => {
  it("shows a reviewed MCP tool as the server's reviewed tool, not as unregistered", () => {
    const row = rowOf(render(["orders_lookup_order"], [server()]), "orders_lookup_order");
    expect(row).toContain("reviewed MCP tool of server <code>orders</code> (read)");
    expect(row).toContain("Looks up an order");
    expect(row).not.toContain("not registered");
  });

  it("marks a tool of a disabled server as not offered, and a name nothing provides as unregistered", () => {
    const page = render(["orders_lookup_order", "no_such_tool"], [server({ enabled: false })]);
    expect(rowOf(page, "orders_lookup_order")).toContain("server disabled: not offered");
    expect(rowOf(page, "no_such_tool")).toContain("not registered in this deployment");
  });
});

describe("the agent page's outbound rules say what the code does (finding 13)", () => {
  const page = (outboundRules: { effect: "allow" | "deny"; pattern: string }[]) =>
    agentView(
      {
        agent: agent(),
        today: { runs: 0, tokens: 0 },
        toolkits: [],
        rules: [],
        outboundRules: outboundRules.map((r) => ({ agent: AGENT, ...r })),
        approvers: [],
        responsibilities: [],
        threads: { items: [], next: null },
        runs: { items: [], next: null },
        deliveryEvents: [],
        mcpServers: [],
      },
      config(),
      defaultRegistry(),
    ).toString();
  const section = (html: string) =>
    html.slice(html.indexOf("<h2>Outbound rules</h2>"), html.indexOf("<h2>Responsibilities</h2>"));

  it("without an allow rule: a mail-started run reaches only its reply's participants, a scheduled run the domains too", () => {
    for (const rules of [[], [{ effect: "deny" as const, pattern: "*@agents.example.net" }]]) {
      const s = section(page(rules));
      expect(s).toContain("a run started by mail writes only to its reply&#39;s own participants");
      expect(s).toContain(
        "not even to the registered domains; a scheduled run also to addresses at the registered domains",
      );
      expect(s).not.toContain("mail goes only to addresses at the registered domains");
    }
  });

  it("with an allow rule the rules alone decide, and the default is not claimed", () => {
    expect(section(page([{ effect: "allow", pattern: "*@partner.example" }]))).not.toContain(
      "a run started by mail",
    );
  });
});
