import { describe, expect, it } from "vitest";
import { runStep } from "../../../shared/agent/loop/step.ts";
import { failExhaustedRun } from "../../../shared/agent/runs/retries-exhausted.ts";
import type { EventInput } from "../../../shared/ports/webhooks.ts";
import { recordingEventSink } from "../../fakes/events.ts";
import { stepWorld } from "../../helpers/step-world.ts";

// Every way a run ends emits its signed event (docs/events.md): `run.completed`, or `run.failed` with the reason
// code. The run id is the key, so a redelivery that emits again carries the same webhook-id.

const ends = (s: { emitted: EventInput[] }) =>
  s.emitted.map((e) => [e.type, e.key, e.data.state, e.data.reason]);

describe("a run's end is a signed event on every path", () => {
  it("the model stops: run.completed", async () => {
    const hooks = recordingEventSink();
    const w = stepWorld({ webhooks: hooks });
    const runId = await w.startReplyRun();
    await w.drive(runId);
    expect(ends(hooks)).toEqual([["run.completed", runId, "completed", "model-stopped"]]);
  });

  it("the agent is gone: run.failed with agent-missing", async () => {
    const hooks = recordingEventSink();
    const w = stepWorld({ webhooks: hooks });
    const runId = await w.startReplyRun();
    w.snapshot.admin = { ...w.snapshot.admin, agents: [] };
    await w.step(runId, 1);
    expect(ends(hooks)).toEqual([["run.failed", runId, "failed", "agent-missing"]]);
  });

  it("the mail a run answers is gone: run.failed with message-missing", async () => {
    const hooks = recordingEventSink();
    const w = stepWorld({ webhooks: hooks });
    const runId = await w.startReplyRun();
    const row = w.runs.rows.get(runId);
    if (!row) throw new Error("run not created");
    w.runs.rows.set(runId, { ...row, messageId: "a-message-nobody-stored" });
    expect(await w.step(runId, 1)).toEqual({ status: "skipped", reason: "run-missing" });
    expect(ends(hooks)).toEqual([["run.failed", runId, "failed", "message-missing"]]);
  });

  it("a step whose retries ran out: run.failed with step-retries-exhausted", async () => {
    const hooks = recordingEventSink();
    const w = stepWorld({ webhooks: hooks });
    const runId = await w.startReplyRun();
    await failExhaustedRun({ runId, round: 1 }, w.deps, w.logger);
    expect(ends(hooks)).toEqual([["run.failed", runId, "failed", "step-retries-exhausted"]]);
  });

  it("a function killed after the run ended, before its event: the redelivery emits it, same key", async () => {
    const hooks = recordingEventSink({ dieFirst: true });
    const w = stepWorld({ webhooks: hooks });
    const runId = await w.startReplyRun();
    await expect(w.step(runId, 1)).rejects.toThrow("killed");
    expect(w.runs.rows.get(runId)).toMatchObject({ state: "completed" });
    expect(await runStep({ runId, round: 1 }, w.deps)).toEqual({
      status: "skipped",
      reason: "run-not-running",
    });
    expect(ends(hooks)).toEqual([["run.completed", runId, "completed", "model-stopped"]]);
    expect(hooks.emitted[0]?.data.rounds).toBe(1);
  });
});

// One run end (shared/agent/runs/end-run.ts): every path that fails a run has the same effects, in the same order.
// A path that skipped one (failMissing once wrote no trace event) makes its row differ from the others.
describe("every path that fails a run has the same effects", () => {
  type World = ReturnType<typeof stepWorld>;
  const effects = async (w: World, hooks: { emitted: EventInput[] }, runId: string) => [
    `state:${w.runs.rows.get(runId)?.state}`,
    ...(await w.trace(runId)).filter((t) => t === "run-finished").map((t) => `trace:${t}`),
    ...w.failures.reports.filter((r) => r.runId === runId).map((r) => `report:${r.class}`),
    ...hooks.emitted.filter((e) => e.key === runId).map((e) => `event:${e.type}`),
  ];
  const paths: Record<string, (w: World, runId: string) => Promise<unknown>> = {
    "the model fails on the last try": async (w, runId) => {
      w.model.queued.push({ ok: false, reason: "model-network", detail: "down", retryable: true });
      return runStep({ runId, round: 1 }, w.deps, { lastDelivery: true });
    },
    "the agent is gone": async (w, runId) => {
      w.snapshot.admin = { ...w.snapshot.admin, agents: [] };
      return w.step(runId, 1);
    },
    "the mail is gone": async (w, runId) => {
      const row = w.runs.rows.get(runId);
      if (row) w.runs.rows.set(runId, { ...row, messageId: "a-message-nobody-stored" });
      return w.step(runId, 1);
    },
    "the step's retries ran out": (w, runId) => failExhaustedRun({ runId, round: 1 }, w.deps, w.logger),
  };

  it("state, trace event, G19 report and signed event, on each path", async () => {
    const rows: Record<string, string[]> = {};
    for (const [name, end] of Object.entries(paths)) {
      const hooks = recordingEventSink();
      const w = stepWorld({ webhooks: hooks });
      const runId = await w.startReplyRun();
      await end(w, runId);
      rows[name] = await effects(w, hooks, runId);
    }
    const expected = ["state:failed", "trace:run-finished", "report:run-failed", "event:run.failed"];
    expect(rows).toEqual(Object.fromEntries(Object.keys(paths).map((name) => [name, expected])));
  });

  it("on the last try, a state write that fails still reports the end (one rule: endRun's lastTry)", async () => {
    const hooks = recordingEventSink();
    const w = stepWorld({ webhooks: hooks });
    const runId = await w.startReplyRun();
    const finish = w.runs.finish.bind(w.runs);
    w.runs.finish = async () => {
      throw new Error("throttled");
    };
    await failExhaustedRun({ runId, round: 1 }, w.deps, w.logger);
    w.runs.finish = finish;
    expect(await effects(w, hooks, runId)).toEqual([
      "state:running",
      "trace:run-finished",
      "report:run-failed",
      "event:run.failed",
    ]);
    expect(w.logger.lines.map((l) => l.message)).toContain(
      "could not mark the run ended; reporting it anyway",
    );
  });
});
