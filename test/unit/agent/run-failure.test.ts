import { describe, expect, it } from "vitest";
import { runStep } from "../../../shared/agent/loop/step.ts";
import type { FailedRun } from "../../../shared/agent/ports.ts";
import { runFailures } from "../../../shared/agent/runs/run-failure.ts";
import type { ModelResult } from "../../../shared/model/types.ts";
import type { OutboundRequest } from "../../../shared/payloads/outbound.ts";
import { AGENT, SENDER } from "../../fakes/builders.ts";
import { recordingFailures } from "../../fakes/failures.ts";
import { memoryState } from "../../fakes/state.ts";
import { stepWorld } from "../../helpers/step-world.ts";

/** runFailures (shared/agent/runs/run-failure.ts) over the state fake: the once-a-day mark is a conditional put. */
function world(opts: { automatic?: boolean } = {}) {
  const clock = { now: new Date("2026-11-29T10:00:00Z") };
  const state = memoryState({ now: () => clock.now });
  const failures = recordingFailures();
  const sent: OutboundRequest[] = [];
  const failed = runFailures({
    failures,
    firstNoticeToday: async (agent, sender, day) =>
      (await state.putIfAbsent(`runfailnotice#${agent}#${sender}`, day, {}, 2 * 24 * 3600)).ok,
    isAutomatic: async () => opts.automatic === true,
    sendOutbound: async (r) => void sent.push(r),
    now: () => clock.now,
  });
  return { failed, failures, sent, clock };
}

const run = (over: Partial<FailedRun> = {}): FailedRun => ({
  runId: "run-1",
  agent: AGENT,
  correlationId: "corr-1",
  sender: { address: SENDER, routingKey: SENDER.toLowerCase() },
  messageId: "m-1",
  ...over,
});

describe("a failed run (G19)", () => {
  it("is reported with its reason and the provider's message, and its proven sender is told, only them", async () => {
    const w = world();
    await w.failed.failed(run(), "model-http-error", "503 upstream down");
    expect(w.failures.reports).toEqual([
      {
        class: "run-failed",
        reason: "model-http-error",
        detail: "503 upstream down",
        agent: AGENT,
        runId: "run-1",
        correlationId: "corr-1",
        senderNotice: "sent",
      },
    ]);
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0]).toMatchObject({
      agent: AGENT,
      to: [SENDER],
      cc: [],
      bcc: [],
      kind: "notice",
      runId: "run-1",
      notice: { reason: "run-failed" },
    });
    // Only the reason code travels: the outbound renders the fixed text (G6).
    expect(w.sent[0]?.body).toBe("");
  });

  it("tells a sender at most once a day per agent; another agent, or the next day, tells them again", async () => {
    const w = world();
    await w.failed.failed(run(), "model-unknown");
    await w.failed.failed(run({ runId: "run-2" }), "model-unknown");
    await w.failed.failed(run({ runId: "run-3", agent: "sales@agents.example.net" }), "model-unknown");
    w.clock.now = new Date("2026-11-30T00:00:01Z");
    await w.failed.failed(run({ runId: "run-4" }), "model-unknown");
    expect(w.failures.reports.map((r) => [r.runId, r.senderNotice])).toEqual([
      ["run-1", "sent"],
      ["run-2", "already-today"],
      ["run-3", "sent"],
      ["run-4", "sent"],
    ]);
    expect(w.sent.map((r) => r.runId)).toEqual(["run-1", "run-3", "run-4"]);
    // The request id is the agent, the sender and the day: the outbound's own claim absorbs a second one too.
    expect(new Set(w.sent.map((r) => r.requestId)).size).toBe(3);
  });

  it("never tells the sender of automatic mail (G6), nor anyone for a scheduled run", async () => {
    const auto = world({ automatic: true });
    await auto.failed.failed(run(), "model-unknown");
    const scheduled = world();
    await scheduled.failed.failed(run({ sender: null, messageId: null }), "model-unknown");
    expect([...auto.sent, ...scheduled.sent]).toEqual([]);
    expect(auto.failures.reports[0]?.senderNotice).toBe("automatic-mail");
    expect(scheduled.failures.reports[0]?.senderNotice).toBe("no-sender");
  });
});

describe("the step loop's last delivery", () => {
  it("a retryable model failure on the last delivery ends the run with the model's reason, never 'will retry'", async () => {
    const w = stepWorld();
    const runId = await w.startReplyRun();
    const refused: ModelResult = {
      ok: false,
      reason: "model-network",
      detail: "connect ECONNREFUSED 127.0.0.1:9",
      retryable: true,
    };
    w.model.queued.push(refused);
    expect(await w.step(runId, 1)).toMatchObject({ status: "retry" });
    w.model.queued.push(refused);
    expect(await runStep({ runId, round: 1 }, w.deps, { lastDelivery: true })).toMatchObject({
      status: "finished",
      state: "failed",
      reason: "model-network",
    });
    const tries = (await w.log.list(runId)).filter((e) => e.type === "model-failure").map((e) => e.data);
    expect(tries).toEqual([
      expect.objectContaining({ retryable: true }),
      expect.objectContaining({ retryable: false, lastTry: true }),
    ]);
    expect(w.failures.reports).toEqual([
      expect.objectContaining({
        class: "run-failed",
        reason: "model-network",
        detail: "connect ECONNREFUSED 127.0.0.1:9",
      }),
    ]);
  });
});
