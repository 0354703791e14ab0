import { describe, expect, it } from "vitest";
import * as z from "zod";
import { runStep } from "../../../shared/agent/loop/step.ts";
import { MAX_CARRIED_RESULT_BYTES, type StepPayload } from "../../../shared/payloads/agent-step.ts";
import { sendEmailTool } from "../../../shared/tool-framework/builtin/send-email.ts";
import {
  defineTool,
  type EgressDeclaration,
  success,
  type ToolResult,
} from "../../../shared/tool-framework/tool.ts";
import { APPROVER, countingTool, toolkit } from "../../fakes/builders.ts";
import { QUEUES, type StepWorldOptions, stepWorld } from "../../helpers/step-world.ts";

/** runStep (shared/agent/loop/step.ts) on the in-memory fakes: every rule real, no emulator. */

const lookup = [{ toolCalls: [{ name: "lookup_order", input: { note: "1234" } }] }, { text: "done" }];

/** The world's `lookup_order`, answering every call with `result` (and declaring `egress`). */
function lookupReturning(result: ToolResult, egress: EgressDeclaration = { kind: "structure" }) {
  return defineTool({
    name: "lookup_order",
    description: "test lookup",
    summary: "test",
    input: z.object({ note: z.string().max(100).optional() }).strict(),
    egress,
    sideEffects: { kind: "none" },
    use: async () => result,
  });
}

function world(opts: StepWorldOptions = {}) {
  const counts = new Map<string, number>();
  const w = stepWorld({
    tools: [countingTool("lookup_order", counts)],
    toolkits: [toolkit("orders", ["lookup_order"])],
    turns: lookup,
    ...opts,
  });
  return { ...w, counts };
}

describe("runStep", () => {
  it("a round runs the model's tool call, saves the turn, then enqueues the next round with its results", async () => {
    const w = world();
    const runId = await w.startReplyRun();
    expect(await w.step(runId, 1)).toEqual({ status: "continued", next: 2 });
    expect(w.counts.get("lookup_order")).toBe(1);
    const results = [
      {
        toolCallId: "call_0_0",
        isError: false,
        content: { type: "json", value: { ran: "lookup_order", sender: "alice@example.com", note: "1234" } },
      },
    ];
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([{ runId, round: 2, results }]);
    // One transcript write per round: the turn; its results ride with the next round's message.
    const t = await w.transcripts.load(runId);
    expect(t?.lastRound).toBe(1);
    expect(t?.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(w.ledger.calls).toEqual([`claim ${runId}#1 → claimed`, `markDone ${runId}#1`]);
    // A passed budget check is part of the model request; only a refusal is its own event.
    expect(await w.trace(runId)).toEqual([
      "model-request",
      "model-turn",
      "tool-call",
      "tool-result",
      "round-done",
    ]);
    expect(await w.step(runId, 2)).toMatchObject({ status: "finished", state: "completed" });
    const last = await w.transcripts.load(runId);
    expect(last?.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(last?.messages[2]).toEqual({ role: "tool", results });
  });

  it("results too large for the step message are saved with their round; the message carries none", async () => {
    const big = lookupReturning(success({ text: "x".repeat(MAX_CARRIED_RESULT_BYTES) }));
    const w = world({ tools: [big] });
    const runId = await w.startReplyRun();
    await w.step(runId, 1);
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([{ runId, round: 2 }]);
    expect((await w.transcripts.load(runId))?.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
    ]);
    expect(await w.step(runId, 2)).toMatchObject({ status: "finished", state: "completed" });
    expect(JSON.stringify(w.model.calls[1]?.messages)).toContain("x".repeat(1000));
  });

  it("results with an image are saved with their round, never carried (the message would drop the image)", async () => {
    const pixel = lookupReturning(
      success({ photo: 1 }, [{ type: "image", mediaType: "image/png", base64: "iVBORw0KGgo=" }]),
    );
    const w = world({ tools: [pixel] });
    const runId = await w.startReplyRun();
    await w.step(runId, 1);
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([{ runId, round: 2 }]);
    const t = await w.transcripts.load(runId);
    expect(t?.messages[2]).toMatchObject({ role: "tool", results: [{ attachments: [{ type: "image" }] }] });
  });

  it("a run that ends before its round's turn is saved keeps the results its message carried", async () => {
    const w = world({ config: { budgets: { tokensPerAgentPerDay: 1 } } });
    const runId = await w.startReplyRun();
    await w.step(runId, 1); // the scripted turn reports usage: the day's tokens are spent
    expect(await w.step(runId, 2)).toMatchObject({ status: "finished", state: "budget-exceeded" });
    expect((await w.transcripts.load(runId))?.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
    ]);
  });

  it("a next-round message without its results (sent before they were carried) replays them from the cache", async () => {
    const w = world();
    const runId = await w.startReplyRun();
    await w.step(runId, 1);
    expect(await runStep({ runId, round: 2 }, w.deps)).toMatchObject({ status: "finished" });
    expect(w.counts.get("lookup_order")).toBe(1);
    const t = await w.transcripts.load(runId);
    expect(t?.messages[2]).toMatchObject({
      role: "tool",
      results: [{ toolCallId: "call_0_0", isError: false }],
    });
    expect(w.model.calls).toHaveLength(2);
  });

  it("the model stopping finishes the run completed, once", async () => {
    const w = world();
    const runId = await w.startReplyRun();
    const outcomes = await w.drive(runId);
    expect(outcomes.at(-1)).toEqual({ status: "finished", state: "completed", reason: "model-stopped" });
    expect(w.runs.rows.get(runId)).toMatchObject({ state: "completed", finishReason: "model-stopped" });
    expect(w.model.calls).toHaveLength(2);
    expect((await w.trace(runId)).at(-1)).toBe("run-finished");
    // The last round is not marked done in the ledger: the finished run itself turns a redelivery away.
    expect(await w.step(runId, 2)).toEqual({ status: "skipped", reason: "run-not-running" });
    expect(w.model.calls).toHaveLength(2);
  });

  it("a round delivered twice runs once: the redelivery of a done round is skipped", async () => {
    const w = world();
    const runId = await w.startReplyRun();
    await w.step(runId, 1);
    expect(await w.step(runId, 1)).toEqual({ status: "skipped", reason: "round-done" });
    expect(w.model.calls).toHaveLength(1);
    expect(w.counts.get("lookup_order")).toBe(1);
    expect(w.queue.bodies(QUEUES.agentStep)).toHaveLength(1);
  });

  it("two deliveries of one round at once: one runs it, the other is busy and goes back to the queue", async () => {
    const w = world();
    const runId = await w.startReplyRun();
    const outcomes = await Promise.all([w.step(runId, 1), w.step(runId, 1)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["busy", "continued"]);
    expect(w.model.calls).toHaveLength(1);
    expect(w.counts.get("lookup_order")).toBe(1);
  });

  it("a delivery that died after its tool ran is resumed after the lease: no second model call, no second run of the tool", async () => {
    const w = world({ leaseMs: 60_000 });
    const runId = await w.startReplyRun();
    const send = w.queue.send;
    w.queue.send = async () => {
      throw new Error("queue down");
    };
    await expect(w.step(runId, 1)).rejects.toThrow("queue down");
    w.queue.send = send;
    expect(w.counts.get("lookup_order")).toBe(1);
    // While the lease runs, a redelivery is busy; after it, the redelivery takes the round over.
    expect(await w.step(runId, 1)).toEqual({ status: "busy" });
    w.clock.now = new Date(w.clock.now.getTime() + 60_001);
    expect(await w.step(runId, 1)).toEqual({ status: "continued", next: 2 });
    expect(w.model.calls).toHaveLength(1);
    expect(w.counts.get("lookup_order")).toBe(1);
    expect(await w.trace(runId)).toContain("round-resumed");
  });

  it("stops at the round cap: the agent's own cap lowers the deployment's", async () => {
    const forever = [0, 1, 2, 3].map(() => lookup[0]);
    const w = world({ turns: forever, config: { maxToolTurns: 3 }, agent: { maxToolTurns: 2 } });
    const runId = await w.startReplyRun();
    const outcomes = await w.drive(runId);
    expect(outcomes).toEqual([
      { status: "continued", next: 2 },
      { status: "finished", state: "turn-limit", reason: "reached 2 rounds" },
    ]);
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([expect.objectContaining({ runId, round: 2 })]);
    expect(w.counts.get("lookup_order")).toBe(2);
    // The last round's results have no round to ride with: they are saved.
    const t = await w.transcripts.load(runId);
    expect(t?.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
  });

  it("a sender over their daily runs is refused before inference, told once, and gives back the agent's run", async () => {
    const w = world({ turns: [{ text: "done" }], config: { budgets: { runsPerSenderPerDay: 1 } } });
    await w.drive(await w.startReplyRun());
    const second = await w.startReplyRun();
    const third = await w.startReplyRun();
    const refused = { status: "finished", state: "budget-exceeded", reason: "sender-runs-per-day" };
    expect(await w.step(second, 1)).toEqual(refused);
    expect(await w.step(third, 1)).toEqual(refused);
    expect(w.model.calls).toHaveLength(1);
    // One notice a day, however often the budget refuses.
    expect(w.queue.bodies(QUEUES.outbound)).toEqual([
      expect.objectContaining({
        kind: "notice",
        to: ["alice@example.com"],
        notice: { reason: "sender-budget", inboundHop: 0 },
      }),
    ]);
    // The agent's own day counts only the run that ran.
    const day = w.clock.now.toISOString().slice(0, 10);
    expect((await w.state.get("budget#runs#agent#helpdesk@agents.example.net", day))?.value).toBe(1);
  });

  it("a day's tokens spent stop the next round before the model is asked", async () => {
    const spend = {
      toolCalls: [{ name: "lookup_order", input: {} }],
      usage: { inputTokens: 90, outputTokens: 20 },
    };
    const w = world({ turns: [spend, spend], config: { budgets: { tokensPerAgentPerDay: 100 } } });
    const runId = await w.startReplyRun();
    expect(await w.drive(runId)).toEqual([
      { status: "continued", next: 2 },
      { status: "finished", state: "budget-exceeded", reason: "agent-tokens-per-day" },
    ]);
    expect(w.model.calls).toHaveLength(1);
  });

  it("a retryable model failure releases the round so the redelivery takes it at once; a permanent one fails the run", async () => {
    const w = world();
    const runId = await w.startReplyRun();
    w.model.queued.push({ ok: false, reason: "model-throttled", detail: "429", retryable: true });
    expect(await w.step(runId, 1)).toEqual({ status: "retry", reason: "model-throttled" });
    expect(await w.step(runId, 1)).toEqual({ status: "continued", next: 2 });

    w.model.queued.push({ ok: false, reason: "model-auth", detail: "401", retryable: false });
    expect(await w.step(runId, 2)).toEqual({ status: "finished", state: "failed", reason: "model-auth" });
    expect(w.runs.rows.get(runId)?.state).toBe("failed");
  });

  it("skips a missing or finished run, and ends a run whose agent is gone", async () => {
    const w = world();
    expect(await w.step("run-nope", 1)).toEqual({ status: "skipped", reason: "run-missing" });
    const done = await w.startReplyRun();
    await w.runs.finish(done, "completed", "model-stopped");
    expect(await w.step(done, 1)).toEqual({ status: "skipped", reason: "run-not-running" });
    const orphan = await w.startReplyRun();
    w.snapshot.admin = { ...w.snapshot.admin, agents: [] };
    expect(await w.step(orphan, 1)).toEqual({ status: "skipped", reason: "agent-missing" });
    expect(w.runs.rows.get(orphan)).toMatchObject({ state: "failed", finishReason: "agent-missing" });
    expect(w.model.calls).toHaveLength(0);
    expect(w.logger.messages("info")).toEqual([
      "agent step skipped",
      "agent step skipped",
      "agent step skipped",
    ]);
  });

  it("a tool outside the agent's toolkits is refused to the model, never run", async () => {
    const w = world({ toolkits: [] });
    const runId = await w.startReplyRun();
    await w.step(runId, 1);
    expect(w.counts.get("lookup_order")).toBeUndefined();
    const refused = (await w.log.list(runId)).find((e) => e.type === "tool-refused");
    expect(refused?.data).toMatchObject({ name: "lookup_order" });
  });
});

describe("a missing transcript is known from the run item, never from the store", () => {
  const loads = (w: ReturnType<typeof world>) => {
    const seen = { loads: 0 };
    const deps = {
      ...w.deps,
      transcripts: {
        load: async (id: string) => {
          seen.loads++;
          return w.transcripts.load(id);
        },
        save: w.transcripts.save,
      },
    };
    return { seen, deps };
  };

  it("a round 1 taken over before any save reads no transcript: its run says none was written", async () => {
    const w = world({ leaseMs: 60_000 });
    const runId = await w.startReplyRun();
    const { seen, deps } = loads(w);
    const save = deps.transcripts.save;
    deps.transcripts.save = async () => {
      throw new Error("S3 down");
    };
    await expect(runStep({ runId, round: 1 }, deps)).rejects.toThrow("S3 down");
    deps.transcripts.save = save;
    expect(w.runs.rows.get(runId)?.transcriptSaved).toBe(false);
    w.clock.now = new Date(w.clock.now.getTime() + 60_001);
    // No `fresh` on the message (a takeover): the run item alone says there is nothing to read.
    expect(await runStep({ runId, round: 1 }, deps)).toEqual({ status: "continued", next: 2 });
    expect(seen.loads).toBe(0);
  });

  it("the first save is noted on the run before any tool runs, once; a takeover then reads the saved turn", async () => {
    const w = world({ leaseMs: 60_000 });
    const runId = await w.startReplyRun();
    const { seen, deps } = loads(w);
    const noted: number[] = [];
    const noteTranscript = deps.runs.noteTranscript;
    deps.runs = {
      ...deps.runs,
      noteTranscript: async (id) => {
        noted.push(w.counts.get("lookup_order") ?? 0);
        await noteTranscript(id);
      },
    };
    const send = w.queue.send;
    w.queue.send = async () => {
      throw new Error("queue down");
    };
    await expect(runStep({ runId, round: 1 }, deps)).rejects.toThrow("queue down");
    w.queue.send = send;
    expect(noted).toEqual([0]); // noted before lookup_order ran
    expect(w.runs.rows.get(runId)?.transcriptSaved).toBe(true);
    w.clock.now = new Date(w.clock.now.getTime() + 60_001);
    expect(await runStep({ runId, round: 1 }, deps)).toEqual({ status: "continued", next: 2 });
    expect(seen.loads).toBe(1);
    expect(w.model.calls).toHaveLength(1);
    await runStep(w.queue.bodies(QUEUES.agentStep).at(-1) as StepPayload, deps);
    expect(noted).toHaveLength(1);
  });

  it("a run that says its transcript was saved, when none is found, fails the delivery instead of starting over", async () => {
    const w = world();
    const runId = await w.startReplyRun();
    await w.runs.noteTranscript(runId);
    await expect(w.step(runId, 1)).rejects.toThrow("though the run says it was saved");
    expect(w.model.calls).toHaveLength(0);
  });
});

describe("what a step message knows about its run (reads skipped, heeded only on a first claim)", () => {
  const counting = (w: ReturnType<typeof world>) => {
    const seen = { loads: 0, afterRuns: 0 };
    const deps = {
      ...w.deps,
      transcripts: {
        load: async (id: string) => {
          seen.loads++;
          return w.transcripts.load(id);
        },
        save: w.transcripts.save,
      },
      afterRun: async (...a: Parameters<NonNullable<typeof w.deps.afterRun>>) => {
        seen.afterRuns++;
        return w.deps.afterRun?.(...a);
      },
    };
    return { seen, deps };
  };
  const start = (runId: string) =>
    ({ runId, round: 1, fresh: true, noPlan: true, channelOpen: true }) as const;

  it("a new run's first claim reads no transcript, no plan and no channel marker, and passes what it knows on", async () => {
    // A reply: send_email's deliver asks whether the run's channels are closed (G18). The agent works on after
    // answering, so a round 2 follows and shows what round 1 passed on.
    const w = world({
      agent: { continueAfterReply: true },
      tools: [sendEmailTool],
      toolkits: [toolkit("mail", ["send_email"])],
      turns: [
        { toolCalls: [{ name: "send_email", input: { mode: "reply", body: "On it." } }] },
        { text: "done" },
      ],
    });
    const runId = await w.startReplyRun();
    const { seen, deps } = counting(w);
    const markerReads = () => w.state.reads.filter((k) => k.startsWith("channel#")).length;
    expect(await runStep(start(runId), deps)).toEqual({ status: "continued", next: 2 });
    expect(seen.loads).toBe(0);
    expect(markerReads()).toBe(0);
    expect(w.queue.bodies(QUEUES.outbound)).toHaveLength(1);
    const next = w.queue.bodies(QUEUES.agentStep).at(-1);
    expect(next).toMatchObject({ runId, round: 2, noPlan: true, channelOpen: true });
    expect(await runStep(next as StepPayload, deps)).toMatchObject({
      status: "finished",
      state: "completed",
    });
    expect(seen.loads).toBe(1); // round 2 continues the saved transcript
    expect(seen.afterRuns).toBe(0); // nothing was proposed: no plan to look for
    expect(markerReads()).toBe(0);
  });

  it("a round taken over after a crash heeds none of it: it reads, and passes nothing on", async () => {
    const w = world({ leaseMs: 60_000 });
    const runId = await w.startReplyRun();
    const { seen, deps } = counting(w);
    const send = w.queue.send;
    w.queue.send = async () => {
      throw new Error("queue down");
    };
    await expect(runStep(start(runId), deps)).rejects.toThrow("queue down");
    w.queue.send = send;
    w.clock.now = new Date(w.clock.now.getTime() + 60_001);
    expect(await runStep(start(runId), deps)).toEqual({ status: "continued", next: 2 });
    expect(seen.loads).toBe(1);
    expect(w.model.calls).toHaveLength(1); // the saved turn was found, not asked for again
    const next = w.queue.bodies(QUEUES.agentStep).at(-1) as StepPayload;
    expect(next.noPlan).toBeUndefined();
    expect(next.channelOpen).toBeUndefined();
    await runStep(next, deps);
    expect(seen.afterRuns).toBe(1);
  });

  it("a round that closes the run's channels does not say they are open, and the next round is held to it (G18)", async () => {
    const vault = lookupReturning(success({ card: "4111" }), {
      kind: "classified",
      record: false,
      classifyInput: () => [],
      classifyResult: () => ["payment-card"],
    });
    const w = world({ tools: [vault], config: { egress: { restrictedClasses: ["payment-card"] } } });
    const runId = await w.startReplyRun();
    await runStep(start(runId), w.deps);
    const next = w.queue.bodies(QUEUES.agentStep).at(-1) as StepPayload;
    expect(next).toMatchObject({ runId, round: 2, noPlan: true });
    expect(next.channelOpen).toBeUndefined();
    expect(await w.trace(runId)).toContain("channel-closed");
  });

  it("a round that proposes an operation does not say there is no plan: the card goes out when the run ends (G14)", async () => {
    const counts = new Map<string, number>();
    const w = world({
      tools: [countingTool("issue_refund", counts, { confirm: true })],
      toolkits: [toolkit("refunds", ["issue_refund"])],
      approvers: [{ toolkit: "refunds", address: APPROVER }],
      turns: [{ toolCalls: [{ name: "issue_refund", input: { note: "A-1002" } }] }, { text: "proposed" }],
    });
    const runId = await w.startReplyRun();
    await runStep(start(runId), w.deps);
    const next = w.queue.bodies(QUEUES.agentStep).at(-1) as StepPayload;
    expect(next.noPlan).toBeUndefined();
    expect(next.channelOpen).toBe(true);
    await runStep(next, w.deps);
    expect(
      w.queue.bodies(QUEUES.outbound).some((b) => (b as { requestId: string }).requestId === `card-${runId}`),
    ).toBe(true);
  });
});

describe("a reply ends the run (one model call for a simple answer)", () => {
  const reply = {
    toolCalls: [{ name: "send_email", input: { mode: "reply", body: "Your order ships Monday." } }],
  };
  const mailWorld = (turns: unknown[], opts: StepWorldOptions = {}) => {
    const counts = new Map<string, number>();
    return stepWorld({
      tools: [sendEmailTool, countingTool("lookup_order", counts)],
      toolkits: [toolkit("mail", ["send_email", "lookup_order"])],
      turns,
      ...opts,
    });
  };

  it("a round whose only call is a sent reply completes the run: no second model call, the send once", async () => {
    const w = mailWorld([reply, { text: "done" }]);
    const runId = await w.startReplyRun();
    expect(await w.step(runId, 1)).toEqual({ status: "finished", state: "completed", reason: "replied" });
    expect(w.queue.bodies(QUEUES.outbound)).toHaveLength(1);
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([]);
    expect((await w.trace(runId)).filter((e) => e === "model-request")).toHaveLength(1);
    // the turn is saved (before the send ran); its result is in the trace, not written again (a PUT per mail)
    expect((await w.transcripts.load(runId))?.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(await w.trace(runId)).toContain("tool-result");
    // a redelivery of the same round does nothing more
    expect(await w.step(runId, 1)).toMatchObject({ status: "skipped", reason: "run-not-running" });
    expect(w.queue.bodies(QUEUES.outbound)).toHaveLength(1);
  });

  it("a delivery that crashed after the send ends the run too, without sending again (the result cache answers)", async () => {
    const w = mailWorld([reply, { text: "done" }]);
    const runId = await w.startReplyRun();
    const finish = w.runs.finish.bind(w.runs);
    w.runs.finish = async () => {
      throw new Error("crash before the run is marked finished");
    };
    await expect(w.step(runId, 1)).rejects.toThrow("crash");
    w.runs.finish = finish;
    w.clock.now = new Date(w.clock.now.getTime() + 10 * 60_000);
    expect(await w.step(runId, 1)).toEqual({ status: "finished", state: "completed", reason: "replied" });
    expect(w.queue.bodies(QUEUES.outbound)).toHaveLength(1);
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([]);
  });

  it.each([
    [
      "the agent opts out (continueAfterReply)",
      [reply, { text: "done" }],
      { agent: { continueAfterReply: true } },
    ],
    [
      "the model asked for more in the same turn",
      [{ toolCalls: [...reply.toolCalls, { name: "lookup_order", input: {} }] }, { text: "done" }],
      {},
    ],
    [
      "the reply was refused (a subject on a reply)",
      [
        { toolCalls: [{ name: "send_email", input: { mode: "reply", subject: "x", body: "b" } }] },
        { text: "done" },
      ],
      {},
    ],
    [
      "the mail was new, not a reply",
      [
        {
          toolCalls: [
            {
              name: "send_email",
              input: { mode: "new", to: ["alice@example.com"], subject: "s", body: "b" },
            },
          ],
        },
        { text: "done" },
      ],
      {
        outboundRules: [
          { agent: "helpdesk@agents.example.net", pattern: "alice@example.com", effect: "allow" },
        ],
      },
    ],
    [
      "the only call was another tool",
      [{ toolCalls: [{ name: "lookup_order", input: {} }] }, { text: "done" }],
      {},
    ],
  ] as const)("the run continues when %s", async (_name, turns, opts) => {
    const w = mailWorld([...turns], opts as StepWorldOptions);
    const runId = await w.startReplyRun();
    expect(await w.step(runId, 1)).toEqual({ status: "continued", next: 2 });
    expect(await w.step(runId, 2)).toMatchObject({
      status: "finished",
      state: "completed",
      reason: "model-stopped",
    });
  });

  it("the turn limit still holds: a reply on the last allowed round ends the run as replied", async () => {
    const w = mailWorld([{ toolCalls: [{ name: "lookup_order", input: {} }] }, reply], {
      config: { maxToolTurns: 2 },
    });
    const runId = await w.startReplyRun();
    expect(await w.step(runId, 1)).toEqual({ status: "continued", next: 2 });
    expect(await w.step(runId, 2)).toEqual({ status: "finished", state: "completed", reason: "replied" });
  });
});
