import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { afterEach, describe, expect, it } from "vitest";
import type { StepOutcome } from "../../shared/agent/loop/round.ts";
import { runStep } from "../../shared/agent/loop/step.ts";
import { makeClients } from "../../shared/aws/clients.ts";
import type { Budgets } from "../../shared/config/schema.ts";
import {
  counterTool,
  counting,
  type Harness,
  SENDER,
  scripted,
  startHarness,
} from "../helpers/agent-harness.ts";

/** G10 against the emulators: the real budget gate over the real atomic counters. */

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function runToEnd(harness: Harness, runId: string): Promise<StepOutcome> {
  for (let round = 1; round <= 20; round++) {
    const outcome = await runStep(await harness.queued(runId, round), harness.deps);
    if (outcome.status !== "continued") return outcome;
  }
  throw new Error("run did not end");
}

/** Everything on the outbound queue now (each message is received once: it then stays invisible). */
async function drainOutbound(harness: Harness): Promise<Record<string, unknown>[]> {
  const sqs = makeClients(harness.emulators.resources).sqs;
  const bodies: Record<string, unknown>[] = [];
  for (;;) {
    const got = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: harness.emulators.resources.queues.outbound,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
      }),
    );
    if (!got.Messages?.length) return bodies;
    for (const m of got.Messages) bodies.push(JSON.parse(m.Body ?? "{}"));
  }
}

async function start(budgets: Partial<Budgets>, turns: unknown[]) {
  const counts = new Map<string, number>();
  const model = counting(scripted(turns));
  h = await startHarness({
    tools: [counterTool("lookup", counts)],
    toolkits: [{ id: "kit", tools: ["lookup"] }],
    model,
    budgets,
  });
  return { harness: h, model, counts };
}

/** Each budget verdict in the trace: a pass is said by the model request, a refusal by a budget-check event. */
const budgetEvents = async (harness: Harness, runId: string) =>
  (await harness.deps.stores.runEvents.list(runId))
    .filter((e) => e.type === "budget-check" || e.type === "model-request")
    .map((e) => (e.type === "model-request" ? { ok: e.data.budget === "ok" } : e.data));

describe("budgets (G10, local stack)", () => {
  it("the third run from a sender stops before the model, and the sender gets one notice a day", async () => {
    const { harness, model } = await start({ runsPerSenderPerDay: 2 }, [{ text: "done" }]);
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await harness.startReplyRun());
    expect(await runToEnd(harness, runs[0] as string)).toMatchObject({ state: "completed" });
    expect(await runToEnd(harness, runs[1] as string)).toMatchObject({ state: "completed" });
    expect(model.calls).toHaveLength(2);

    const third = await runStep({ runId: runs[2] as string, round: 1 }, harness.deps);
    expect(third).toEqual({ status: "finished", state: "budget-exceeded", reason: "sender-runs-per-day" });
    expect(model.calls).toHaveLength(2);
    expect(await budgetEvents(harness, runs[2] as string)).toEqual([
      { ok: false, reason: "sender-runs-per-day" },
    ]);
    const types = (await harness.deps.stores.runEvents.list(runs[2] as string)).map((e) => e.type);
    expect(types).not.toContain("model-request");
    expect((await harness.deps.stores.runs.get(runs[2] as string))?.state).toBe("budget-exceeded");

    expect(await runToEnd(harness, runs[3] as string)).toMatchObject({ state: "budget-exceeded" });
    expect(model.calls).toHaveLength(2);
    const outbound = await drainOutbound(harness);
    expect(outbound).toEqual([
      expect.objectContaining({
        kind: "notice",
        mode: "new",
        to: [SENDER],
        notice: { reason: "sender-budget", inboundHop: 0 },
      }),
    ]);
  });

  it("a sender over their own cap does not use up the agent's runs for other senders", async () => {
    const { harness, model } = await start({ runsPerSenderPerDay: 2, runsPerAgentPerDay: 3 }, [
      { text: "done" },
    ]);
    const alice = [];
    for (let i = 0; i < 5; i++) alice.push(await runToEnd(harness, await harness.startReplyRun()));
    expect(alice.map((o) => (o.status === "finished" ? o.reason : o.status))).toEqual([
      "model-stopped",
      "model-stopped",
      "sender-runs-per-day",
      "sender-runs-per-day",
      "sender-runs-per-day",
    ]);
    const bob = await runToEnd(harness, await harness.startReplyRun({ from: "bob@example.com" }));
    expect(bob).toMatchObject({ state: "completed" });
    expect(model.calls).toHaveLength(3);
    // The agent's cap still holds: its fourth real run is refused whoever sends it.
    const carol = await runToEnd(harness, await harness.startReplyRun({ from: "carol@example.com" }));
    expect(carol).toMatchObject({ state: "budget-exceeded", reason: "agent-runs-per-day" });
    expect(model.calls).toHaveLength(3);
    const notices = (await drainOutbound(harness)).map((b) => (b.to as string[]).join()).sort();
    expect(notices).toEqual([SENDER, "carol@example.com"]);
  });

  it.each([
    { cap: { tokensPerAgentPerDay: 100 }, reason: "agent-tokens-per-day" },
    { cap: { tokensPerSenderPerDay: 100 }, reason: "sender-tokens-per-day" },
  ])("a spent token budget ($reason) stops the run before its next model call", async ({ cap, reason }) => {
    const usage = { inputTokens: 80, outputTokens: 30 };
    const { harness, model, counts } = await start(cap, [
      { toolCalls: [{ name: "lookup", input: {} }], usage },
      { toolCalls: [{ name: "lookup", input: {} }], usage },
      { text: "done", usage },
    ]);
    const runId = await harness.startReplyRun();
    expect(await runStep({ runId, round: 1 }, harness.deps)).toEqual({ status: "continued", next: 2 });
    expect(await runStep(await harness.queued(runId, 2), harness.deps)).toEqual({
      status: "finished",
      state: "budget-exceeded",
      reason,
    });
    expect(model.calls).toHaveLength(1);
    expect(counts.get("lookup")).toBe(1);
    expect(await budgetEvents(harness, runId)).toEqual([{ ok: true }, { ok: false, reason }]);
    // The sender's next run is refused before inference, too, and the notice is not repeated.
    const next = await runToEnd(harness, await harness.startReplyRun());
    expect(next).toMatchObject({ state: "budget-exceeded", reason });
    expect(model.calls).toHaveLength(1);
    expect(await drainOutbound(harness)).toHaveLength(1);
  });
});
