import { describe, expect, it } from "vitest";
import { renderRunTree } from "../../cli/runs-tree.ts";
import type { StoredRunEvent } from "../../shared/ports/index.ts";
import type { RunRecord } from "../../shared/ports/runs.ts";
import { timeline, timelineTree } from "../../shared/trace/timeline.ts";

const ev = (
  seq: number,
  round: number,
  type: string,
  data: Record<string, unknown> = {},
): StoredRunEvent => ({
  runId: "r",
  seq,
  round,
  type,
  at: `2026-11-30T10:00:${String(seq).padStart(2, "0")}.000Z`,
  data,
});

/** A run that proposes a refund in round 1, stops in round 2, mails the card, finishes; hours later it is applied. */
const EVENTS = [
  ev(1, 1, "budget-check", { ok: true }),
  ev(2, 1, "model-request", { model: "m", tools: ["issue_refund"] }),
  ev(3, 1, "model-turn", {
    toolCalls: [{ id: "c1", name: "issue_refund" }],
    stopReason: "tool_use",
    usage: { inputTokens: 120, outputTokens: 30 },
  }),
  ev(4, 1, "tool-call", { callId: "c1", name: "issue_refund", toolkits: ["refunds"] }),
  ev(5, 1, "tool-result", { callId: "c1", name: "issue_refund", ok: true }),
  ev(6, 1, "round-done", { next: 2 }),
  ev(7, 2, "budget-check", { ok: true }),
  ev(8, 2, "model-turn", {
    toolCalls: [],
    stopReason: "end",
    usage: { inputTokens: 40, outputTokens: 5, cacheReadTokens: 1100, cacheWriteTokens: 150 },
  }),
  ev(9, 0, "plan-card-sent", { operations: 1, approvers: 1 }),
  ev(10, 2, "run-finished", { state: "completed", reason: "model-stopped" }),
  ev(11, 0, "plan-op", { index: 0, tool: "issue_refund", ok: true }),
].reverse(); // stored order must not matter: seq is the order things happened

const RUN = {
  runId: "r",
  agent: "shop@x.example",
  kind: "reply",
  state: "completed",
  finishReason: "model-stopped",
  sender: "carol@y.example",
  createdAt: "2026-11-30T10:00:00.000Z",
  correlationId: "c",
} as RunRecord;

describe("a run's timeline", () => {
  it("is in time order; plan events sit where they happened, not before round 1", () => {
    const nodes = timelineTree(timeline(EVENTS, { proposedCallIds: new Set(["c1"]) }));
    expect(
      nodes.map((n) => (n.kind === "round" ? `round ${n.round} (${n.items.length})` : n.item.type)),
    ).toEqual(["round 1 (6)", "round 2 (2)", "plan-card-sent", "run-finished", "plan-op"]);
  });

  it("a model request that passed the budget says so (no separate budget-check event)", () => {
    const items = timeline(
      [ev(1, 1, "model-request", { budget: "ok", model: "m", tools: ["send_email"] })],
      {},
    );
    expect(items[0]?.text).toBe("budget ok; model m offered [send_email]");
    expect(timeline(EVENTS, {}).find((i) => i.type === "model-request")?.text).toBe(
      "model m offered [issue_refund]",
    );
  });

  it("reads a confirm tool's call as proposed and the apply as applied", () => {
    const items = timeline(EVENTS, { proposedCallIds: new Set(["c1"]) });
    const byType = (t: string) => items.find((i) => i.type === t);
    expect(byType("tool-call")?.status).toBe("proposed");
    expect(byType("tool-result")?.status).toBe("proposed");
    expect(byType("tool-result")?.text).toContain("proposed");
    expect(byType("tool-result")?.text).not.toMatch(/ ok$/);
    expect(byType("plan-op")?.status).toBe("applied");
    expect(byType("model-turn")?.text).toContain("tokens in 120 / out 30");
    // prompt caching: cache reads and writes shown apart from full-price input
    const round2 = items.filter((i) => i.type === "model-turn").at(-1);
    expect(round2?.text).toContain("tokens in 40 / cache read 1100 / cache write 150 / out 5");
    // Without the plan at hand, the registry's confirm flag says the same.
    const fromRegistry = timeline(EVENTS, { isConfirmTool: (n) => n === "issue_refund" });
    expect(fromRegistry.find((i) => i.type === "tool-result")?.status).toBe("proposed");
  });

  it("`postern runs show` prints the same order: proposed in round 1, applied after the run finished", () => {
    const text = renderRunTree(RUN, EVENTS, { proposedCallIds: new Set(["c1"]) });
    const at = (s: string) => text.indexOf(s);
    expect(at("round 1")).toBeGreaterThan(-1);
    expect(at("round 1")).toBeLessThan(at("tool issue_refund proposed"));
    expect(at("tool issue_refund proposed")).toBeLessThan(at("round 2"));
    expect(at("round 2")).toBeLessThan(at("plan: confirm card queued"));
    expect(at("plan: confirm card queued")).toBeLessThan(at("run finished"));
    expect(at("run finished")).toBeLessThan(at("plan: operation 1 issue_refund applied"));
    expect(text).not.toMatch(/round 0/);
    expect(text).not.toContain("issue_refund ok");
  });
});
