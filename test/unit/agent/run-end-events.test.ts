import { describe, expect, it } from "vitest";
import { runStep } from "../../../shared/agent/loop/step.ts";
import { failExhaustedRun } from "../../../shared/agent/runs/retries-exhausted.ts";
import type { EventInput } from "../../../shared/ports/index.ts";
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
