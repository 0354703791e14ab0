import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { OutboundRequest } from "../../../shared/payloads/outbound.ts";
import { defineTool, success, type Tool, toolFailure } from "../../../shared/tool-framework/tool.ts";
import { timeline } from "../../../shared/trace/timeline.ts";
import { AGENT, APPROVER, confirmMessage, toolkit } from "../../fakes/builders.ts";
import { recordingEventSink } from "../../fakes/events.ts";
import { QUEUES, stepWorld } from "../../helpers/step-world.ts";

/**
 * An approved plan's outcome as it happened (G14, G19): `applied` only when every operation succeeded; otherwise
 * `failed (<reason>)`, reported, signed, and told to the approver and the model operation by operation.
 */

type Behaviour = "ok" | "fails" | "throws" | "hangs";

/** A confirm tool that does what it is told, and counts its runs. */
function opTool(name: string, behaviour: Behaviour, ran: string[]): Tool {
  return defineTool({
    name,
    description: `Test confirm tool ${name}.`,
    summary: "test operation",
    input: z.object({ order: z.string().max(20) }).strict(),
    egress: { kind: "structure" },
    sideEffects: { kind: "external", confirm: true },
    async use(_ctx, input) {
      ran.push(name);
      if (behaviour === "fails")
        return toolFailure("order-not-found", `no order ${input.order} for this sender`);
      if (behaviour === "throws") throw new Error("refund service exploded");
      if (behaviour === "hangs") return new Promise(() => {});
      return success({ refundId: `rf-${name}`, order: input.order });
    },
  });
}

/** A run proposes one operation per tool, in order; the approver approves it. */
async function approved(behaviours: readonly Behaviour[], opts: { opTimeoutMs?: number } = {}) {
  const ran: string[] = [];
  const names = behaviours.map((_, i) => `op_${i + 1}`);
  const webhooks = recordingEventSink();
  const w = stepWorld({
    tools: behaviours.map((b, i) => opTool(names[i] as string, b, ran)),
    toolkits: [toolkit("refunds", names)],
    approvers: [{ toolkit: "refunds", address: APPROVER }],
    turns: [{ toolCalls: names.map((name) => ({ name, input: { order: "A-1001" } })) }, { text: "proposed" }],
    webhooks,
    ...opts,
  });
  const runId = await w.startReplyRun();
  await w.drive(runId);
  const code = (await w.plans.get(runId))?.code;
  if (!code) throw new Error("no pending plan");
  const outcome = await w.deps.applyConfirm(confirmMessage({ code }));
  const outbound = w.queue.bodies(QUEUES.outbound) as OutboundRequest[];
  const mail = outbound.find((b) => b.requestId === `plan-outcome-${runId}`);
  const continuation = await w.transcripts.load(`${runId}-applied`);
  const last = continuation?.messages.at(-1);
  return {
    ...w,
    runId,
    ran,
    outcome,
    webhooks,
    plan: await w.plans.get(runId),
    mail,
    continuationText: last?.role === "user" ? (last.content[0] as { text: string }).text : "",
    planEvents: timeline(await w.log.list(runId)).filter((i) => i.type === "plan-op"),
  };
}

describe("an approved plan's outcome (G14, G19)", () => {
  it("every operation succeeded: applied, with when and each result; the approver is told it ran", async () => {
    const w = await approved(["ok", "ok"]);
    expect(w.outcome.status).toBe("applied");
    expect(w.plan).toMatchObject({
      state: "applied",
      decidedBy: APPROVER,
      decidedAt: w.clock.now.toISOString(),
      finishedAt: w.clock.now.toISOString(),
      results: [
        { number: 1, tool: "op_1", status: "ok" },
        { number: 2, tool: "op_2", status: "ok" },
      ],
    });
    expect(w.plan?.failedReason).toBeUndefined();
    expect(w.failures.reports).toEqual([]);
    expect(w.webhooks.emitted.map((e) => e.type)).toContain("plan.applied");
    expect(w.webhooks.emitted.map((e) => e.type)).not.toContain("plan.failed");
    expect(w.mail).toMatchObject({ to: [APPROVER], recipientsFrom: "approvers", kind: "agent" });
    expect(w.mail?.subject).toMatch(/^Applied \(2 operations\) - code /);
    expect(w.mail?.body).toContain("ran: all 2 operations succeeded");
    expect(w.continuationText).toMatch(/^Plan outcome: applied\. Approved by boss@approvers\.example/);
    expect(w.planEvents.map((e) => e.text)).toEqual([
      "plan: operation 1 of 2 op_1 applied",
      "plan: operation 2 of 2 op_2 applied",
    ]);
  });

  it("a tool that returns a failure: failed (its reason), reported, signed, and nobody is told it was done", async () => {
    const w = await approved(["fails"]);
    expect(w.outcome).toMatchObject({ status: "failed", reason: "order-not-found" });
    expect(w.plan).toMatchObject({
      state: "failed",
      failedReason: "order-not-found",
      results: [
        {
          number: 1,
          tool: "op_1",
          status: "failed",
          reason: "order-not-found",
          detail: "no order A-1001 for this sender",
        },
      ],
    });
    expect(w.failures.reports).toEqual([
      {
        class: "plan-failed",
        reason: "order-not-found",
        detail: "operation 1 of 1 (op_1) failed: no order A-1001 for this sender",
        agent: AGENT,
        runId: w.runId,
        correlationId: expect.any(String),
      },
    ]);
    const failed = w.webhooks.emitted.find((e) => e.type === "plan.failed");
    expect(failed).toMatchObject({
      key: w.runId,
      data: { reason: "order-not-found", failed: ["op_1"], succeeded: [], notRun: [], decidedBy: APPROVER },
    });
    expect(w.webhooks.emitted.map((e) => e.type)).not.toContain("plan.applied");
    expect(w.mail?.subject).toMatch(/^FAILED: not everything you approved was done \(order-not-found\)/);
    expect(w.mail?.body).toContain(
      "did NOT run as approved: operation 1 of 1 (op_1) failed (order-not-found)",
    );
    expect(w.mail?.body).toContain(
      "result: FAILED (order-not-found), the tool said: no order A-1001 for this sender",
    );
    expect(w.mail?.body).not.toMatch(/succeeded|result: done/);
    expect(w.continuationText).toMatch(/^Plan outcome: failed \(order-not-found\)\./);
    expect(w.continuationText).toContain('"status":"failed","error":"order-not-found"');
    expect(w.planEvents.map((e) => [e.status, e.text])).toEqual([
      ["failed", "plan: operation 1 of 1 op_1 failed: order-not-found"],
    ]);
  });

  it("a tool that throws: failed (tool-error), with what it threw", async () => {
    const w = await approved(["throws"]);
    expect(w.outcome).toMatchObject({ status: "failed", reason: "tool-error" });
    expect(w.plan?.results).toEqual([
      {
        number: 1,
        tool: "op_1",
        status: "failed",
        reason: "tool-error",
        detail: "op_1 failed: refund service exploded",
        at: w.clock.now.toISOString(),
      },
    ]);
    expect(w.failures.reports.map((f) => [f.class, f.reason])).toEqual([["plan-failed", "tool-error"]]);
  });

  it("a tool that never answers: failed (tool-timeout) at the deadline, and the words say its effect is unknown", async () => {
    const w = await approved(["hangs"], { opTimeoutMs: 20 });
    expect(w.outcome).toMatchObject({ status: "failed", reason: "tool-timeout" });
    expect(w.plan).toMatchObject({ state: "failed", failedReason: "tool-timeout" });
    expect(w.plan?.results?.[0]?.detail).toBe(
      "op_1 did not answer within 20 ms; whether it took effect is unknown",
    );
    expect(w.failures.reports.map((f) => f.reason)).toEqual(["tool-timeout"]);
    expect(w.mail?.body).toContain("whether it took effect is unknown");
  });

  it("a mix: what succeeded is said, the failure stops the rest, and each later operation says it never ran", async () => {
    const w = await approved(["ok", "fails", "ok"]);
    expect(w.ran).toEqual(["op_1", "op_2"]);
    expect(w.outcome).toMatchObject({ status: "failed", reason: "order-not-found" });
    expect(w.plan?.results?.map((r) => [r.number, r.tool, r.status])).toEqual([
      [1, "op_1", "ok"],
      [2, "op_2", "failed"],
      [3, "op_3", "not-run"],
    ]);
    expect(w.webhooks.emitted.find((e) => e.type === "plan.failed")?.data).toMatchObject({
      tools: ["op_1", "op_2", "op_3"],
      succeeded: ["op_1"],
      failed: ["op_2"],
      notRun: ["op_3"],
    });
    expect(w.mail?.body).toContain("1. ");
    expect(w.mail?.body.split("\n").filter((l) => l.startsWith("   result: "))).toEqual([
      "   result: done",
      "   result: FAILED (order-not-found), the tool said: no order A-1001 for this sender",
      "   result: not run: an earlier operation failed, so this one was never started",
    ]);
    expect(w.continuationText).toContain("Succeeded before it: operation 1 of 3 (op_1).");
    expect(w.continuationText).toContain("1 later operation was not run.");
    expect(w.planEvents.map((e) => e.text)).toEqual([
      "plan: operation 1 of 3 op_1 applied",
      "plan: operation 2 of 3 op_2 failed: order-not-found",
      "plan: operation 3 of 3 op_3 not run: an earlier operation failed",
    ]);
  });

  it("an agent removed before the approval: failed (agent-missing), nothing runs, the approver is told", async () => {
    const ran: string[] = [];
    const w = stepWorld({
      tools: [opTool("op_1", "ok", ran)],
      toolkits: [toolkit("refunds", ["op_1"])],
      approvers: [{ toolkit: "refunds", address: APPROVER }],
      turns: [{ toolCalls: [{ name: "op_1", input: { order: "A-1001" } }] }, { text: "proposed" }],
    });
    const runId = await w.startReplyRun();
    await w.drive(runId);
    const code = (await w.plans.get(runId))?.code ?? "";
    w.snapshot.admin = { ...w.snapshot.admin, agents: [] };
    expect(await w.deps.applyConfirm(confirmMessage({ code }))).toMatchObject({
      status: "failed",
      reason: "agent-missing",
    });
    expect(ran).toEqual([]);
    expect(await w.plans.get(runId)).toMatchObject({
      state: "failed",
      failedReason: "agent-missing",
      results: [{ number: 1, status: "not-run" }],
    });
    expect(w.failures.reports.map((f) => [f.class, f.reason])).toEqual([["plan-failed", "agent-missing"]]);
    const mail = (w.queue.bodies(QUEUES.outbound) as OutboundRequest[]).find(
      (b) => b.requestId === `plan-outcome-${runId}`,
    );
    expect(mail?.body).toContain("did NOT run as approved");
    expect(mail?.body).toContain("The agent is gone, so nobody continues the conversation");
    expect(w.runs.rows.get(`${runId}-applied`)).toBeUndefined();
  });
});

describe("an apply cut off mid-way (the function killed between two operations)", () => {
  /** A pending plan of two operations; the crashed delivery had moved it to applying and finished op_1. */
  async function interrupted() {
    const ran: string[] = [];
    const w = stepWorld({
      tools: [opTool("op_1", "ok", ran), opTool("op_2", "ok", ran)],
      toolkits: [toolkit("refunds", ["op_1", "op_2"])],
      approvers: [{ toolkit: "refunds", address: APPROVER }],
      turns: [
        {
          toolCalls: [
            { name: "op_1", input: { order: "A-1001" } },
            { name: "op_2", input: { order: "A-1001" } },
          ],
        },
        { text: "proposed" },
      ],
    });
    const runId = await w.startReplyRun();
    await w.drive(runId);
    const code = (await w.plans.get(runId))?.code ?? "";
    const first = confirmMessage({ code });
    await w.plans.move(runId, "pending", "applying", {
      decidedBy: APPROVER,
      decidedReply: `${first.replyId}|${first.sender}`,
    });
    await w.state.putIfAbsent(
      `toolres#plan:${runId}:0`,
      "result",
      { result: JSON.stringify(success({ refundId: "rf-op_1" })) },
      3600,
    );
    return { ...w, runId, ran, first };
  }

  it("its redelivery finishes the apply: what ran is not run again, the rest runs, the plan ends applied", async () => {
    const w = await interrupted();
    expect(await w.deps.applyConfirm(w.first)).toMatchObject({ status: "applied" });
    expect(w.ran).toEqual(["op_2"]);
    expect(await w.plans.get(w.runId)).toMatchObject({
      state: "applied",
      results: [
        { number: 1, status: "ok" },
        { number: 2, status: "ok" },
      ],
    });
    expect(await w.trace(w.runId)).toContain("plan-resumed");
  });

  it("another reply, or a CANCEL, finds it decided and resumes nothing", async () => {
    const w = await interrupted();
    for (const other of [{ replyId: "ses-reply-2" }, { action: "cancel" as const }])
      expect(await w.deps.applyConfirm({ ...w.first, ...other })).toEqual({
        status: "refused",
        reason: "confirm-not-pending",
      });
    expect(w.ran).toEqual([]);
    expect((await w.plans.get(w.runId))?.state).toBe("applying");
  });
});
