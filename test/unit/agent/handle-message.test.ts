import { describe, expect, it } from "vitest";
import {
  type Delivery,
  handleAgentStepPayload,
  type StepHandlerDeps,
} from "../../../shared/agent/handle-message.ts";
import type { RoundClaim } from "../../../shared/agent/ports.ts";
import { RETRIES_EXHAUSTED } from "../../../shared/agent/runs/retries-exhausted.ts";
import { parseConfig } from "../../../shared/config/load.ts";
import type { ConfirmPayload } from "../../../shared/payloads/agent-step.ts";
import type { RunRecord } from "../../../shared/ports/index.ts";
import { noWebhooks } from "../../../shared/ports/index.ts";
import { admin, replyRun, storedRun } from "../../fakes/builders.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { memoryRunTable } from "../../fakes/run-table.ts";
import { recordingSink } from "../../fakes/trace-sink.ts";

const unused = (what: string) => () => {
  throw new Error(`${what} is not used here`);
};

/** The handler's ports: the run table and the trace record; the round ledger answers `claim`. */
function world(opts: { claim?: RoundClaim["status"]; runsGet?: () => Promise<never> } = {}) {
  const table = memoryRunTable([storedRun()]);
  const events = recordingSink();
  const calls: string[] = [];
  const deps: StepHandlerDeps = {
    webhooks: noWebhooks,
    config: parseConfig({
      domains: ["agents.example.net"],
      models: [{ id: "demo", provider: "scripted", script: "unused.json", egress: "internal" }],
    }),
    registry: unused("registry") as never,
    loadAdmin: async () => admin(),
    model: unused("model"),
    loadRun:
      opts.runsGet ??
      (async (id) => (table.rows.get(id)?.state === "running" ? replyRun({ runId: id }) : null)),
    runs: {
      finish: (id, state, reason) => table.finish(id, state, reason),
      noteRound: unused("noteRound"),
      noteTranscript: unused("noteTranscript"),
    },
    ledger: {
      claim: async (): Promise<RoundClaim> =>
        opts.claim === "claimed" ? { status: "claimed", first: true } : { status: opts.claim ?? "busy" },
      markDone: unused("markDone"),
      release: unused("release"),
    },
    transcripts: { load: unused("load"), save: unused("save") },
    trace: events,
    budgets: {
      beforeInference: unused("budgets"),
      afterInference: unused("budgets"),
      notifyExceeded: unused("budgets"),
    },
    context: { initial: unused("context") },
    cache: { get: unused("cache"), put: unused("cache") },
    enqueue: unused("enqueue"),
    makeToolContext: unused("makeToolContext"),
    logger: recordingLogger(),
    runFailures: {
      async failed(run, reason) {
        calls.push(`failed ${run.runId} ${reason}`);
      },
    },
    leaseMs: 1000,
    async startDue(tick) {
      calls.push(`startDue ${tick.toISOString()}`);
      return { started: ["r1"], invalid: [] };
    },
    async applyConfirm(msg: ConfirmPayload) {
      calls.push(`applyConfirm ${msg.code}`);
      return { status: "cancelled" };
    },
  };
  return { deps, table, events, calls };
}

const delivery = (body: unknown, receiveCount = 1): Delivery => ({
  body: typeof body === "string" ? body : JSON.stringify(body),
  id: "sqs-1",
  receiveCount,
});

async function handle(w: ReturnType<typeof world>, d: Delivery) {
  const logger = recordingLogger();
  const keys: Record<string, string>[] = [];
  const outcome = await handleAgentStepPayload(d, w.deps, {
    maxReceives: 3,
    logger,
    scope: { appendKeys: (k) => void keys.push(k) },
  });
  return { outcome, logger, keys };
}

describe("handleAgentStepPayload", () => {
  it("begins each SQS delivery once: the step it runs does not begin it again", async () => {
    const w = world();
    let begun = 0;
    const deps = { ...w.deps, beginReceive: () => void begun++ };
    const outcome = await handleAgentStepPayload(delivery({ runId: "run-1", round: 1 }), deps, {
      maxReceives: 3,
      logger: recordingLogger(),
      scope: { appendKeys: () => undefined },
    });
    expect(outcome).toBe("retry");
    expect(begun).toBe(1);
  });

  it("a tick starts the responsibilities due; a confirmation goes to the plan", async () => {
    const w = world();
    expect((await handle(w, delivery({ tick: "2026-11-29T12:01:00Z" }))).outcome).toBe("done");
    const confirm = {
      confirm: {
        code: "K7Q2M9XT4Z",
        action: "cancel",
        replyId: "ses-2",
        hop: 1,
        sender: "boss@example.com",
        agent: "helpdesk@agents.example.net",
        agentOriginated: false,
      },
    };
    expect((await handle(w, delivery(confirm))).outcome).toBe("done");
    expect(w.calls).toEqual(["startDue 2026-11-29T12:01:00.000Z", "applyConfirm K7Q2M9XT4Z"]);
  });

  it("an unusable message is rejected (to the DLQ), not thrown", async () => {
    const { outcome, logger } = await handle(world(), delivery({ hello: 1 }));
    expect(outcome).toBe("reject");
    expect(logger.lines).toEqual([
      {
        level: "error",
        message: "unusable agent-step payload",
        extra: { sqsMessageId: "sqs-1", reason: "payload-invalid", detail: expect.any(String) },
      },
    ]);
  });

  it("a step carries its run id in the log keys; a finished step is done", async () => {
    const w = world();
    w.table.rows.set("run-1", { ...(w.table.rows.get("run-1") as RunRecord), state: "completed" });
    const { outcome, keys } = await handle(w, delivery({ runId: "run-1", round: 1 }));
    expect(outcome).toBe("done");
    expect(keys).toEqual([{ runId: "run-1" }]);
  });

  it("a busy step goes back to the queue; the run stays running until the last delivery", async () => {
    const w = world({ claim: "busy" });
    expect((await handle(w, delivery({ runId: "run-1", round: 1 }, 2))).outcome).toBe("retry");
    expect(w.table.rows.get("run-1")?.state).toBe("running");
    expect(w.events.events).toEqual([]);
  });

  it("the last delivery failing ends the run failed, with a trace event, before the DLQ takes it", async () => {
    const w = world({ claim: "busy" });
    const { outcome, logger } = await handle(w, delivery({ runId: "run-1", round: 2 }, 3));
    expect(outcome).toBe("retry");
    expect(w.table.rows.get("run-1")).toMatchObject({ state: "failed", finishReason: RETRIES_EXHAUSTED });
    expect(w.events.events).toEqual([
      {
        runId: "run-1",
        type: "run-finished",
        round: 2,
        data: { state: "failed", reason: RETRIES_EXHAUSTED },
      },
    ]);
    expect(logger.lines.map((l) => l.message)).toContain(
      "agent step retries exhausted; run failed, message goes to the DLQ",
    );
  });

  it("a step that throws on its last delivery is logged, ends its run failed and goes back to the queue", async () => {
    const w = world({ runsGet: () => Promise.reject(new Error("dynamo down")) });
    const { outcome, logger } = await handle(w, delivery({ runId: "run-1", round: 1 }, 5));
    expect(outcome).toBe("retry");
    expect(logger.lines[0]?.message).toBe("agent step failed; SQS will redeliver");
    expect(w.table.rows.get("run-1")?.state).toBe("failed");
  });
});
