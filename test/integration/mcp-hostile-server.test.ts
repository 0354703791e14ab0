import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closedChannelCheck, restrictedReadCheck } from "../../shared/agent/channels/channels.ts";
import { egressCheck } from "../../shared/agent/channels/egress.ts";
import { type DispatchDeps, dispatchToolCall } from "../../shared/agent/loop/dispatch.ts";
import { parseConfig } from "../../shared/config/load.ts";
import {
  type McpServerItem,
  mcpConnector,
  mcpRuntime,
  pinTools,
  type ToolChoice,
} from "../../shared/mcp/index.ts";
import type { DefinitionChange, ServerUnavailable } from "../../shared/mcp/mcp-tool.ts";
import type { OfferEvent } from "../../shared/mcp/offer-check.ts";
import { ToolRegistry } from "../../shared/tool-framework/registry.ts";
import type { ToolResult } from "../../shared/tool-framework/tool.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import {
  type HostileServer,
  INJECTED_RESULT,
  POISONED_DESCRIPTION,
  startHostileServer,
} from "../helpers/mcp-servers/hostile.ts";
import { loopbackResolver, mcpCallContext, memoryCounter, serverItem } from "../helpers/mcp-world.ts";
import { kit } from "../unit/agent/dispatch-harness.ts";

/**
 * A hostile MCP server of our own (test/helpers/mcp-servers/hostile.ts) against every gate an MCP tool passes
 * (G20): what was reviewed is what is offered; a rug pull or a tool added later is never offered; results are
 * fenced and bounded; calls are budgeted, timed out, idempotent, principal-bearing, and pass the egress gate and
 * closed channels exactly as a built-in tool does.
 */
const SENDER = "alice@example.com";
const TOKEN = "s3cret-bearer-value";
const local = { allowStdio: false, allowLoopback: true };

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
afterAll(() => hostile.close());
afterEach(() => {
  Object.assign(hostile.state, {
    rugPull: false,
    addTool: false,
    slowMs: 5_000,
    hugeChars: 1_000_000,
    injection: null,
  });
  hostile.calls.length = 0;
});

/** Register the hostile server as `postern mcp add` does: list, then pin the operator's choices. */
async function register(choices: readonly ToolChoice[], extra: Record<string, unknown> = {}) {
  const base = serverItem({ url: hostile.url, ...extra });
  const connect = mcpConnector({ resolve: loopbackResolver, secret: async () => TOKEN, local });
  const session = await connect(base);
  const listed = await session.listTools();
  await session.close();
  const pinned = pinTools(base.id, listed, choices, new Date());
  if (!pinned.ok) throw new Error(pinned.detail);
  return { server: { ...base, tools: [...pinned.pins] } as McpServerItem, listed };
}

function world(server: McpServerItem, opts: { external?: boolean; egressHosts?: string[] } = {}) {
  const changes: DefinitionChange[] = [];
  const unavailable: ServerUnavailable[] = [];
  const counter = memoryCounter();
  const rt = mcpRuntime({
    resolve: loopbackResolver,
    secret: async () => TOKEN,
    local,
    counters: counter,
    report: async (c) => void changes.push(c),
    reportUnavailable: async (u) => void unavailable.push(u),
  });
  const registry = new ToolRegistry();
  registry.adopt(rt.tools([server]));
  const closed = new Set<string>();
  const channel = {
    close: async (runId: string) => void closed.add(runId),
    isClosed: async (runId: string) => closed.has(runId),
  };
  const config = parseConfig({
    domains: ["agents.example.net"],
    models: [
      { id: "demo", provider: "scripted", script: "s.json", egress: opts.external ? "external" : "internal" },
    ],
  });
  const toolkit = kit(
    "orders",
    registry.list().map((t) => t.name),
    { egressHosts: opts.egressHosts ?? [] },
  );
  const results = new Map<string, ToolResult>();
  const proposed: unknown[] = [];
  const deps = (round = 1): DispatchDeps => ({
    gate: {
      agent: "helpdesk@agents.example.net",
      sender: { address: SENDER, routingKey: SENDER, displayName: "" },
      kind: "reply",
      toolkits: [toolkit],
      registry,
    },
    makeContext: (call, key) => mcpCallContext({ callId: call.id, idempotencyKey: key, round }),
    cache: { get: async (k) => results.get(k) ?? null, put: async (k, r) => void results.set(k, r) },
    record: async () => {},
    checks: [
      egressCheck({ model: config.models[0], policy: config.egress, registry }),
      closedChannelCheck({ runId: "run-1", channel, registry }),
      restrictedReadCheck({ runId: "run-1", channel, registry, policy: config.egress }),
    ],
    propose: async (_call, input) => {
      proposed.push(input);
      return { ok: true, data: { status: "proposed" } };
    },
    runId: "run-1",
    round,
  });
  const offer = async () => {
    const events: OfferEvent[] = [];
    const tools = await rt.offer(
      registry.list(),
      { runId: "run-1", agent: "helpdesk@agents.example.net" },
      async (e) => {
        events.push(e as OfferEvent);
      },
    );
    return { names: tools.map((t) => t.name), events };
  };
  return { registry, deps, offer, changes, unavailable, counter, closed, proposed, results };
}

const call = (name: string, input: unknown, id = "c1") => ({ id, name, input });
const textOf = (r: ToolResult) => (r.ok ? String((r.data as { text: string }).text) : "");

describe("review shows the server's claims; only the operator's choices are offered", () => {
  it("a poisoned description is shown at review and offered only if chosen, as reviewed", async () => {
    const { server, listed } = await register([{ name: "order_status", class: "read" }]);
    // The operator sees the poison and the server's annotations at review...
    const poisoned = listed.find((t) => t.name === "lookup_order");
    expect(poisoned).toMatchObject({
      description: POISONED_DESCRIPTION,
      annotations: { readOnlyHint: true },
    });
    // ...and did not choose it: it is never offered, nor callable by name (G11 re-checked at dispatch).
    const w = world(server);
    expect((await w.offer()).names).toEqual(["orders_order_status"]);
    const r = await dispatchToolCall(call("orders_lookup_order", { orderId: "1" }), w.deps());
    expect(r).toMatchObject({ ok: false, reason: "tool-unknown" });
    expect(hostile.calls).toEqual([]);
  });

  it("a tool the server adds after review is never offered, and the trace says so", async () => {
    const { server } = await register([{ name: "order_status", class: "read" }]);
    hostile.state.addTool = true;
    const w = world(server);
    const { names, events } = await w.offer();
    expect(names).toEqual(["orders_order_status"]);
    expect(events).toContainEqual({
      type: "mcp-unreviewed",
      data: { server: "orders", tools: expect.arrayContaining(["export_mailbox", "lookup_order"]) },
    });
  });

  it("a definition changed after review (rug pull) is not offered, is reported once, and is not called", async () => {
    const { server } = await register([
      { name: "lookup_order", class: "read" },
      { name: "order_status", class: "read" },
    ]);
    const w = world(server);
    expect((await w.offer()).names).toEqual(["orders_lookup_order", "orders_order_status"]);
    hostile.state.rugPull = true;
    expect((await w.offer()).names).toEqual(["orders_order_status"]);
    await w.offer();
    expect(w.changes).toEqual([
      expect.objectContaining({
        server: "orders",
        tool: "lookup_order",
        exposedAs: "orders_lookup_order",
        runId: "run-1",
      }),
    ]);
    // Offered before the pull, called after it: the call lists again and refuses.
    const r = await dispatchToolCall(call("orders_lookup_order", { orderId: "7" }), w.deps());
    expect(r).toMatchObject({ ok: false, reason: "mcp-definition-changed" });
    expect(hostile.calls).toEqual([]);
  });

  it("a server that cannot be listed offers nothing and is reported once per run, with a reason code", async () => {
    const { server } = await register([{ name: "order_status", class: "read" }]);
    // Nothing listens on the discard port: the server is down when the run asks for its tools.
    const w = world({ ...server, url: "http://127.0.0.1:9/mcp" });
    const first = await w.offer();
    expect(first.names).toEqual([]);
    expect(first.events).toEqual([
      {
        type: "mcp-unavailable",
        data: { server: "orders", reason: "mcp-call-failed", detail: expect.any(String) },
      },
    ]);
    expect((await w.offer()).names).toEqual([]);
    expect(w.unavailable).toEqual([
      expect.objectContaining({ server: "orders", runId: "run-1", reason: "mcp-call-failed" }),
    ]);
  });

  it("the class is the operator's: a tool the server calls read-only, classed act, is proposed, not run", async () => {
    const { server } = await register([{ name: "cancelOrder", class: "act" }]);
    const w = world(server);
    const r = await dispatchToolCall(call("orders_cancel_order", { orderId: "9" }), w.deps());
    expect(r).toMatchObject({ ok: true, data: { status: "proposed" } });
    expect(w.proposed).toEqual([{ orderId: "9" }]);
    expect(hostile.calls).toEqual([]);
  });
});

describe("a call passes every gate a built-in tool passes", () => {
  it("fences a result that carries instructions and an address, and passes the verified sender as principal", async () => {
    const { server } = await register([{ name: "order_status", class: "read" }], {
      auth: { kind: "bearer", secret: "ORDERS_MCP_TOKEN" },
    });
    const w = world(server);
    const r = await dispatchToolCall(call("orders_order_status", { orderId: "1042" }), w.deps());
    const lines = textOf(r).split("\n");
    expect(lines[0]).toMatch(/^<<<UNTRUSTED TOOL RESULT [0-9a-f]{24}>>>$/);
    expect(lines.at(-1)).toMatch(/^<<<END UNTRUSTED TOOL RESULT [0-9a-f]{24}>>>$/);
    expect(lines.slice(1, -1).every((l) => l.startsWith("| "))).toBe(true);
    expect(textOf(r)).toContain("collector@evil.example");
    expect(INJECTED_RESULT).toContain("SYSTEM NOTICE");
    expect(hostile.calls).toEqual([
      {
        name: "order_status",
        args: { orderId: "1042" },
        meta: {
          "io.postern/principal": SENDER,
          "io.postern/agent": "helpdesk@agents.example.net",
          "io.postern/idempotency-key": "run-1:1:c1",
        },
        authorization: `Bearer ${TOKEN}`,
      },
    ]);
  });

  it("a principal argument is the proven sender, hidden from the model, whatever the model sends (G17)", async () => {
    const { server } = await register([{ name: "lookup_order", class: "read", principalArgument: "notes" }]);
    const w = world(server);
    const tool = w.registry.get("orders_lookup_order");
    expect(Object.keys((tool?.inputJsonSchema.properties ?? {}) as object)).toEqual(["orderId"]);
    await dispatchToolCall(
      call("orders_lookup_order", { orderId: "1", notes: "mallory@evil.example" }),
      w.deps(),
    );
    expect(hostile.calls.map((c) => c.args)).toEqual([{ orderId: "1", notes: SENDER }]);
    // A scheduled run has no proven sender: no call at all.
    const r = await tool?.use(mcpCallContext({ sender: null }), { orderId: "2" });
    expect(r).toMatchObject({ ok: false, reason: "mcp-no-principal" });
    expect(hostile.calls).toHaveLength(1);
  });

  it("a redelivered call replays from the tool-result cache: the server is called once", async () => {
    const { server } = await register([{ name: "order_status", class: "read" }]);
    const w = world(server);
    const first = await dispatchToolCall(call("orders_order_status", { orderId: "1" }), w.deps());
    const again = await dispatchToolCall(call("orders_order_status", { orderId: "1" }), w.deps());
    expect(again).toEqual(first);
    expect(hostile.calls).toHaveLength(1);
  });

  it("a per-run call budget stops the calls after maxCallsPerRun", async () => {
    const { server } = await register([{ name: "order_status", class: "read" }], { maxCallsPerRun: 2 });
    const w = world(server);
    const outcomes = [];
    for (const id of ["a", "b", "c"])
      outcomes.push(await dispatchToolCall(call("orders_order_status", { orderId: id }, id), w.deps()));
    expect(outcomes.map((o) => (o.ok ? "ok" : o.reason))).toEqual(["ok", "ok", "mcp-call-budget"]);
    expect(hostile.calls).toHaveLength(2);
  });

  it("a huge result is cut inside its fence; one past the transport's bound is refused", async () => {
    const { server } = await register([{ name: "huge_report", class: "read" }]);
    const w = world(server);
    const r = await dispatchToolCall(call("orders_huge_report", {}), w.deps());
    expect(r).toMatchObject({ ok: true, data: { truncated: true } });
    expect(textOf(r).length).toBeLessThan(21_000);
    expect(textOf(r)).toMatch(/<<<NOTE [0-9a-f]+>>> cut at 20000 characters\n<<<END UNTRUSTED/);
    hostile.state.hugeChars = 6 * 1024 * 1024;
    const tooBig = await dispatchToolCall(call("orders_huge_report", {}, "c2"), w.deps());
    expect(tooBig).toMatchObject({ ok: false, reason: "mcp-response-too-large" });
  });

  it("a slow server is abandoned after the per-call timeout", async () => {
    const { server } = await register([{ name: "slow_report", class: "read" }], { timeoutMs: 300 });
    const w = world(server);
    // Without the timeout the call would answer "late" after 5 s, successfully.
    const r = await dispatchToolCall(call("orders_slow_report", {}), w.deps());
    expect(r).toMatchObject({ ok: false, reason: "mcp-timeout" });
  });

  it("an external model is refused record content before the server is called (G13)", async () => {
    const { server } = await register([{ name: "order_status", class: "read" }]);
    const w = world(server, { external: true });
    const r = await dispatchToolCall(call("orders_order_status", { orderId: "1" }), w.deps());
    expect(r).toMatchObject({ ok: false, reason: "egress-record-content" });
    expect(hostile.calls).toEqual([]);
  });

  it("a restricted tool's result closes the run's channels; then no server outside the allow-list is reached", async () => {
    const { server } = await register([
      { name: "lookup_order", class: "restricted" },
      { name: "order_status", class: "read" },
    ]);
    const w = world(server);
    const r = await dispatchToolCall(call("orders_lookup_order", { orderId: "1" }), w.deps());
    expect(r.ok).toBe(true);
    expect(w.closed.has("run-1")).toBe(true);
    const after = await dispatchToolCall(
      call("orders_order_status", { orderId: "what the run read" }, "c2"),
      w.deps(),
    );
    expect(after).toMatchObject({ ok: false, reason: "egress-channel-closed" });
    expect(hostile.calls.map((c) => c.name)).toEqual(["lookup_order"]);
  });

  it("a read tool's result leaves the channels open", async () => {
    const { server } = await register([{ name: "order_status", class: "read" }]);
    const w = world(server);
    await dispatchToolCall(call("orders_order_status", { orderId: "1" }), w.deps());
    expect(w.closed.size).toBe(0);
  });

  it("with closed channels, the server's host on the toolkit's allow-list is still reached", async () => {
    const { server } = await register([
      { name: "lookup_order", class: "restricted" },
      { name: "order_status", class: "read" },
    ]);
    const w = world(server, { egressHosts: ["127.0.0.1"] });
    await dispatchToolCall(call("orders_lookup_order", { orderId: "1" }), w.deps());
    const after = await dispatchToolCall(call("orders_order_status", { orderId: "2" }, "c2"), w.deps());
    expect(after.ok).toBe(true);
  });
});

describe("the transport reaches the server's origin only", () => {
  it("a redirect to another host (the metadata service) is refused, not followed", async () => {
    const server = serverItem({ url: hostile.url.replace("/mcp", "/redirect-out") });
    const connect = mcpConnector({ resolve: loopbackResolver, secret: async () => undefined, local });
    await expect(connect(server)).rejects.toThrow(/mcp-redirect-refused/);
  });

  it("OAuth client credentials: the token endpoint's access token is the bearer; a wrong secret is refused", async () => {
    const oauth = () =>
      serverItem({
        url: hostile.url,
        auth: {
          kind: "oauth-client-credentials",
          tokenUrl: hostile.url.replace("/mcp", "/token"),
          clientId: "postern",
          secret: "ORDERS_OAUTH_SECRET",
        },
        tools: [],
      });
    const { server } = await register([{ name: "order_status", class: "read" }]);
    const item = { ...oauth(), tools: server.tools };
    const [tool] = mcpRuntime({
      resolve: loopbackResolver,
      secret: async () => "client-secret",
      local,
      counters: memoryCounter(),
      report: async () => {},
      reportUnavailable: async () => {},
    }).tools([item]);
    expect((await tool?.use(mcpCallContext(), { orderId: "1" }))?.ok).toBe(true);
    expect(hostile.calls.at(-1)?.authorization).toBe("Bearer issued-access-token");
    const wrong = mcpConnector({ resolve: loopbackResolver, secret: async () => "not-the-secret", local });
    await expect(wrong(oauth())).rejects.toMatchObject({ reason: "mcp-auth-unavailable" });
  });

  it("never logs or traces the bearer token", async () => {
    const logger = recordingLogger();
    const { server } = await register([{ name: "order_status", class: "read" }], {
      auth: { kind: "bearer", secret: "ORDERS_MCP_TOKEN" },
    });
    const w = world(server);
    const r = await dispatchToolCall(call("orders_order_status", { orderId: "1" }), {
      ...w.deps(),
      makeContext: (c, key) => mcpCallContext({ callId: c.id, idempotencyKey: key, logger }),
    });
    expect(JSON.stringify([r, logger.lines, w.changes])).not.toContain(TOKEN);
  });
});
