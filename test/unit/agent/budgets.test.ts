import { describe, expect, it } from "vitest";
import { createBudgetGate } from "../../../shared/agent/runs/budgets.ts";
import { deploymentConfig } from "../../../shared/config/schema.ts";
import { agent, replyRun } from "../../fakes/builders.ts";
import { memoryState } from "../../fakes/state.ts";

// G10 on the budget gate alone, over the in-memory state table: what counts as a run, and whose cap applies.

const NOW = new Date("2026-11-29T12:00:00Z");

function gate(budgets: Record<string, number> = {}) {
  const config = deploymentConfig.parse({
    domains: ["agents.example.net"],
    models: [{ id: "demo", provider: "scripted", egress: "internal", script: "x.json" }],
    budgets,
  });
  const counters = memoryState({ now: () => NOW });
  return createBudgetGate({ counters, config, now: () => NOW, notify: async () => undefined });
}

describe("createBudgetGate (G10)", () => {
  it("counts a run once, however often its round 1 is redelivered", async () => {
    const budgets = gate({ runsPerSenderPerDay: 1 });
    const run = replyRun();
    expect(await budgets.beforeInference(run, agent(), 1)).toEqual({ ok: true });
    expect(await budgets.beforeInference(run, agent(), 1)).toEqual({ ok: true });
    expect(await budgets.beforeInference(replyRun({ runId: "run-2" }), agent(), 1)).toEqual({
      ok: false,
      reason: "sender-runs-per-day",
    });
  });

  it("an agent's own caps lower the deployment's, runs and tokens", async () => {
    const runs = gate();
    const capped = agent({ runsPerDay: 1 });
    expect((await runs.beforeInference(replyRun(), capped, 1)).ok).toBe(true);
    expect(await runs.beforeInference(replyRun({ runId: "run-2", sender: null }), capped, 1)).toEqual({
      ok: false,
      reason: "agent-runs-per-day",
    });

    const tokens = gate();
    const frugal = agent({ tokensPerDay: 100 });
    await tokens.afterInference(replyRun(), frugal, { inputTokens: 60, outputTokens: 40 });
    expect(await tokens.beforeInference(replyRun(), frugal, 2)).toEqual({
      ok: false,
      reason: "agent-tokens-per-day",
    });
  });

  it("a day's tokens spent exactly to the cap stop the next model call", async () => {
    const budgets = gate({ tokensPerAgentPerDay: 100 });
    await budgets.afterInference(replyRun(), agent(), { inputTokens: 99, outputTokens: 0 });
    expect((await budgets.beforeInference(replyRun(), agent(), 2)).ok).toBe(true);
    await budgets.afterInference(replyRun(), agent(), { inputTokens: 1, outputTokens: 0 });
    expect(await budgets.beforeInference(replyRun(), agent(), 3)).toEqual({
      ok: false,
      reason: "agent-tokens-per-day",
    });
  });

  it("cached tokens count in full: a warm prompt cache does not stretch a budget", async () => {
    const budgets = gate({ tokensPerAgentPerDay: 100 });
    await budgets.afterInference(replyRun(), agent(), {
      inputTokens: 10,
      outputTokens: 10,
      cacheReadTokens: 70,
      cacheWriteTokens: 10,
    });
    expect(await budgets.beforeInference(replyRun(), agent(), 2)).toEqual({
      ok: false,
      reason: "agent-tokens-per-day",
    });
  });

  it("a sender's tokens spent to their cap stop that sender's next model call, not another sender's", async () => {
    const budgets = gate({ tokensPerSenderPerDay: 50 });
    await budgets.afterInference(replyRun(), agent(), { inputTokens: 30, outputTokens: 20 });
    expect(await budgets.beforeInference(replyRun(), agent(), 2)).toEqual({
      ok: false,
      reason: "sender-tokens-per-day",
    });
    const other = replyRun({
      runId: "run-2",
      sender: { address: "bob@customer.example", routingKey: "bob@customer.example", displayName: "" },
    });
    expect(await budgets.beforeInference(other, agent(), 1)).toEqual({ ok: true });
  });
});
