import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpConnector, mcpRuntime, pinTools } from "../../shared/mcp/index.ts";
import type { ConfirmPayload } from "../../shared/payloads/agent-step.ts";
import { APPROVER, confirmMessage, toolkit } from "../fakes/builders.ts";
import { type HostileServer, startHostileServer } from "../helpers/mcp-servers/hostile.ts";
import { loopbackResolver, memoryCounter, serverItem } from "../helpers/mcp-world.ts";
import { stepWorld } from "../helpers/step-world.ts";

/**
 * An `act` MCP tool through propose → confirm → apply (G14): the model's call only adds an operation to the plan;
 * the approver's confirmation calls the server once, with the plan operation's idempotency key in `_meta`; a second
 * confirmation calls nothing. The server's own annotations (`readOnlyHint: true` on cancelOrder) changed nothing.
 */
const local = { allowStdio: false, allowLoopback: true };
let hostile: HostileServer;

beforeAll(async () => {
  hostile = await startHostileServer();
});
afterAll(() => hostile.close());

async function cancelTool() {
  const base = serverItem({ url: hostile.url });
  const session = await mcpConnector({ resolve: loopbackResolver, secret: async () => undefined, local })(
    base,
  );
  const listed = await session.listTools();
  await session.close();
  const pins = pinTools("orders", listed, [{ name: "cancelOrder", class: "act" }], new Date());
  if (!pins.ok) throw new Error(pins.detail);
  const rt = mcpRuntime({
    resolve: loopbackResolver,
    secret: async () => undefined,
    local,
    counters: memoryCounter(),
    report: async () => {},
    reportUnavailable: async () => {},
  });
  return rt.tools([{ ...base, tools: [...pins.pins] }]);
}

describe("an act MCP tool", () => {
  it("is proposed, never called in the loop, and called once when an approver confirms", async () => {
    const w = stepWorld({
      tools: await cancelTool(),
      toolkits: [toolkit("orders", ["orders_cancel_order"])],
      approvers: [{ toolkit: "orders", address: APPROVER }],
      turns: [
        { toolCalls: [{ name: "orders_cancel_order", input: { orderId: "A-7" } }] },
        { text: "proposed" },
      ],
    });
    const runId = await w.startReplyRun();
    await w.drive(runId);
    expect(hostile.calls).toEqual([]);
    const plan = await w.plans.get(runId);
    if (plan?.state !== "pending" || !plan.code) throw new Error("no pending plan");
    const apply = (extra: Partial<ConfirmPayload> = {}) =>
      w.deps.applyConfirm(confirmMessage({ code: plan.code as string, ...extra }));

    expect(await apply()).toMatchObject({
      status: "applied",
      results: [{ tool: "orders_cancel_order", result: { ok: true } }],
    });
    expect(hostile.calls).toEqual([
      expect.objectContaining({
        name: "cancelOrder",
        args: { orderId: "A-7" },
        meta: expect.objectContaining({ "io.postern/idempotency-key": `plan:${runId}:0` }),
      }),
    ]);
    expect(await apply({ replyId: "ses-reply-2" })).toMatchObject({ status: "refused" });
    expect(hostile.calls).toHaveLength(1);
  });
});
