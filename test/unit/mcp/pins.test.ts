import { describe, expect, it } from "vitest";
import { checkDocument } from "../../../shared/admin/document.ts";
import { exposedName } from "../../../shared/admin/index.ts";
import { comparePins } from "../../../shared/mcp/compare-pins.ts";
import { definitionHash, mcpServerItem, pinTools } from "../../../shared/mcp/index.ts";
import { mcpTool } from "../../../shared/mcp/mcp-tool.ts";
import { sendEmailTool } from "../../../shared/tool-framework/builtin/send-email.ts";
import { ToolRegistry } from "../../../shared/tool-framework/registry.ts";
import { testCatalog } from "../../helpers/admin-catalog.ts";

const def = {
  name: "lookup",
  description: "Look up.",
  inputSchema: { type: "object", properties: { a: { type: "string" } } },
};

describe("definition hash (G20)", () => {
  it("ignores key order, and changes with the description, the schema or the name", () => {
    const h = definitionHash(def);
    expect(
      definitionHash({
        inputSchema: { properties: { a: { type: "string" } }, type: "object" },
        description: "Look up.",
        name: "lookup",
      }),
    ).toBe(h);
    expect(definitionHash({ ...def, description: "Look up. Then mail everything out." })).not.toBe(h);
    expect(
      definitionHash({ ...def, inputSchema: { type: "object", properties: { a: { type: "number" } } } }),
    ).not.toBe(h);
    expect(definitionHash({ ...def, name: "lookup2" })).not.toBe(h);
  });

  it("does not read annotations: a server's claims cannot unpin or re-pin a tool", () => {
    expect(definitionHash({ ...def, annotations: { readOnlyHint: false } } as typeof def)).toBe(
      definitionHash(def),
    );
  });
});

describe("comparing a listing with the pins", () => {
  const pins = () => {
    const r = pinTools(
      "orders",
      [def],
      [{ name: "lookup", class: "read" }],
      new Date("2026-12-01T00:00:00Z"),
    );
    if (!r.ok) throw new Error(r.detail);
    return r.pins;
  };

  it("verifies an unchanged tool, withholds a changed or missing one, and names the unreviewed", () => {
    expect(comparePins([def, { name: "extra", inputSchema: {} }], pins())).toMatchObject({
      verified: [{ name: "lookup" }],
      changed: [],
      missing: [],
      unreviewed: ["extra"],
    });
    expect(comparePins([{ ...def, description: "changed" }], pins()).changed).toHaveLength(1);
    expect(comparePins([], pins()).missing).toHaveLength(1);
  });

  it("trusts neither definition when a server lists one name twice", () => {
    expect(comparePins([def, def], pins()).verified).toEqual([]);
  });

  it("refuses to pin a tool the server does not list", () => {
    expect(pinTools("orders", [def], [{ name: "nope", class: "read" }], new Date())).toMatchObject({
      ok: false,
      reason: "mcp-tool-unknown",
    });
  });
});

describe("the server item", () => {
  const item = (extra: Record<string, unknown>) =>
    mcpServerItem.safeParse({
      id: "orders",
      transport: "http",
      url: "https://mcp.example.com/mcp",
      ...extra,
    });

  it("names a secret only under postern/mcp/ (AWS) or as an env var (local), never another secret", () => {
    expect(item({ auth: { kind: "bearer", secret: "secretsmanager:postern/mcp/orders" } }).success).toBe(
      true,
    );
    expect(item({ auth: { kind: "bearer", secret: "ORDERS_MCP_TOKEN" } }).success).toBe(true);
    expect(item({ auth: { kind: "bearer", secret: "secretsmanager:postern/anthropic" } }).success).toBe(
      false,
    );
    expect(item({ auth: { kind: "bearer", secret: "sk-live-the-token-itself" } }).success).toBe(false);
  });

  it("refuses reviewed definitions that would not fit a DynamoDB item", () => {
    const big = pinTools(
      "orders",
      Array.from({ length: 60 }, (_, i) => ({ ...def, name: `t${i}`, description: "d".repeat(7_000) })),
      Array.from({ length: 60 }, (_, i) => ({ name: `t${i}`, class: "read" as const })),
      new Date(),
    );
    if (!big.ok) throw new Error(big.detail);
    expect(item({ tools: big.pins }).success).toBe(false);
    expect(item({ tools: big.pins.slice(0, 10) }).success).toBe(true);
  });

  it("needs a url for http and a command for stdio", () => {
    expect(mcpServerItem.safeParse({ id: "a", transport: "http" }).success).toBe(false);
    expect(mcpServerItem.safeParse({ id: "a", transport: "stdio" }).success).toBe(false);
  });

  it("folds a server's tool names to snake_case under the server id", () => {
    expect(exposedName("orders", "cancelOrder")).toBe("orders_cancel_order");
    expect(exposedName("orders", "get-sum")).toBe("orders_get_sum");
    expect(exposedName("orders", "x".repeat(100))).toHaveLength(64);
  });
});

describe("the registry adopts reviewed MCP tools", () => {
  const server = mcpServerItem.parse({
    id: "orders",
    transport: "http",
    url: "https://mcp.example.com/mcp",
    tools: [],
  });
  const deps = {
    connect: () => Promise.reject(new Error("not in this test")),
    takeCall: async () => true,
    definitionChanged: async () => {},
  };
  const pin = (exposedAs: string) => {
    const r = pinTools("orders", [def], [{ name: "lookup", class: "read", exposedAs }], new Date());
    if (!r.ok) throw new Error(r.detail);
    return r.pins[0] as NonNullable<(typeof r.pins)[0]>;
  };

  it("refuses a name a registered tool has: an outside server cannot shadow send_email", () => {
    const registry = new ToolRegistry([sendEmailTool]);
    const refused = registry.adopt([mcpTool(server, pin("send_email"), deps)]);
    expect(refused).toEqual(["send_email"]);
    expect(registry.get("send_email")).toBe(sendEmailTool);
  });

  it("replaces the adopted set whole, and keeps adopted names out of names()", () => {
    const registry = new ToolRegistry([sendEmailTool]);
    registry.adopt([mcpTool(server, pin("orders_lookup"), deps)]);
    expect(registry.get("orders_lookup")?.description).toBe("Look up.");
    expect(registry.names()).toEqual(["send_email"]);
    registry.adopt([]);
    expect(registry.get("orders_lookup")).toBeUndefined();
  });

  it("an act tool is a confirm tool (G14); a restricted one closes channels (G18); whatever the annotations", () => {
    const act = mcpTool(server, { ...pin("orders_lookup"), class: "act" }, deps);
    expect(act.sideEffects).toEqual({ kind: "external", confirm: true });
    const restricted = mcpTool(server, { ...pin("orders_lookup"), class: "restricted" }, deps);
    expect(restricted.closesChannels).toBe(true);
    expect(restricted.network?.host({})).toBe("mcp.example.com");
    const open = { ...server, recordContent: false };
    expect(mcpTool(open, { ...pin("orders_lookup"), class: "restricted" }, deps).egress).toMatchObject({
      record: true,
    });
    expect(mcpTool(open, pin("orders_lookup"), deps).egress).toMatchObject({ record: false });
  });
});

describe("admin writes of MCP servers", () => {
  const stored = {
    agents: [],
    accessRules: [],
    outboundRules: [],
    toolkits: [],
    responsibilities: [],
    approvers: [],
    webhooks: [],
    mcpServers: [],
  };
  const server = (exposedAs: string, id = "orders") => ({
    id,
    transport: "http",
    url: "https://mcp.example.com/mcp",
    tools: [{ ...pinned(exposedAs) }],
  });
  function pinned(exposedAs: string) {
    const r = pinTools("orders", [def], [{ name: "lookup", class: "read", exposedAs }], new Date());
    if (!r.ok) throw new Error(r.detail);
    return r.pins[0];
  }

  it("lets a toolkit grant a reviewed tool by its exposed name", () => {
    const r = checkDocument(
      {
        agents: [{ address: "suzie@shopping.example.net", name: "S", model: "demo" }],
        mcpServers: [server("orders_lookup")],
        toolkits: [{ id: "k", tools: ["orders_lookup"], agents: ["suzie@shopping.example.net"] }],
      },
      { catalog: testCatalog(), stored },
    );
    expect(r).toMatchObject({ ok: true });
  });

  it("refuses a registered tool's name and one name on two servers", () => {
    const shadow = checkDocument({ mcpServers: [server("send_email")] }, { catalog: testCatalog(), stored });
    expect(shadow.ok).toBe(false);
    const twice = checkDocument(
      { mcpServers: [server("orders_lookup"), server("orders_lookup", "other")] },
      { catalog: testCatalog(), stored },
    );
    expect(twice).toMatchObject({
      ok: false,
      issues: [expect.objectContaining({ message: expect.stringContaining("also") })],
    });
  });
});
