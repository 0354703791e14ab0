import { describe, expect, it } from "vitest";
import type { ConfirmPayload } from "../../../shared/payloads/agent-step.ts";
import { AGENT, APPROVER, confirmMessage, countingTool, SENDER, toolkit } from "../../fakes/builders.ts";
import { QUEUES, stepWorld } from "../../helpers/step-world.ts";

/** applyConfirmation (shared/agent/plans/apply-plan.ts) on the in-memory fakes, from a plan the step loop proposed. */

/** A run proposes a refund (a confirm tool) and stops; its card goes to the approver. → the code. */
async function proposed() {
  const counts = new Map<string, number>();
  const w = stepWorld({
    tools: [countingTool("issue_refund", counts, { confirm: true })],
    toolkits: [toolkit("refunds", ["issue_refund"])],
    approvers: [{ toolkit: "refunds", address: APPROVER }],
    turns: [{ toolCalls: [{ name: "issue_refund", input: { note: "A-1002" } }] }, { text: "proposed" }],
  });
  const runId = await w.startReplyRun();
  await w.drive(runId);
  const plan = await w.plans.get(runId);
  if (plan?.state !== "pending" || !plan.code) throw new Error("no pending plan");
  const code = plan.code;
  const apply = (extra: Partial<ConfirmPayload> = {}) =>
    w.deps.applyConfirm(confirmMessage({ code, ...extra }));
  const notices = () =>
    w.queue
      .bodies(QUEUES.outbound)
      .filter((b) => (b as { notice?: unknown }).notice)
      .map((b) => (b as { notice: { reason: string } }).notice.reason);
  return { ...w, runId, code, counts, apply, notices };
}

describe("applyConfirmation", () => {
  it("the proposal never ran; the card went to the approver", async () => {
    const w = await proposed();
    expect(w.counts.get("issue_refund")).toBeUndefined();
    const card = w.queue
      .bodies(QUEUES.outbound)
      .find((b) => (b as { requestId: string }).requestId === `card-${w.runId}`);
    expect(card).toMatchObject({ to: [APPROVER], kind: "agent" });
  });

  it("the approver's APPROVE runs the operation once and continues the run; a replay changes nothing and is answered", async () => {
    const w = await proposed();
    const first = await w.apply();
    expect(first).toMatchObject({
      status: "applied",
      results: [{ tool: "issue_refund", result: { ok: true } }],
    });
    expect(w.counts.get("issue_refund")).toBe(1);
    expect(await w.plans.get(w.runId)).toMatchObject({ state: "applied", decidedBy: APPROVER });
    expect(w.runs.rows.get(`${w.runId}-applied`)).toMatchObject({ state: "running", sender: SENDER });
    expect(w.queue.bodies(QUEUES.agentStep)).toContainEqual({ runId: `${w.runId}-applied`, round: 1 });

    expect(await w.apply({ replyId: "ses-reply-2" })).toEqual({
      status: "refused",
      reason: "confirm-not-pending",
    });
    expect(w.counts.get("issue_refund")).toBe(1);
    expect(w.notices()).toEqual(["confirm-already-decided"]);
  });

  it("a listed approver's is the only mail that confirms: not a stranger's, not an agent's, not one an agent relayed", async () => {
    const w = await proposed();
    expect(await w.apply({ sender: "mallory@example.com" })).toEqual({
      status: "refused",
      reason: "confirm-not-approver",
    });
    expect(await w.apply({ sender: AGENT })).toEqual({ status: "refused", reason: "confirm-from-agent" });
    expect(await w.apply({ agentOriginated: true })).toEqual({
      status: "refused",
      reason: "confirm-agent-originated",
    });
    expect((await w.plans.get(w.runId))?.state).toBe("pending");
    expect(w.counts.get("issue_refund")).toBeUndefined();
    // Strangers are not told anything; the trace says who tried.
    expect(w.notices()).toEqual([]);
    const refused = (await w.log.list(w.runId)).filter((e) => e.type === "confirm-refused");
    expect(refused.map((e) => e.data)).toEqual([
      { reason: "confirm-not-approver", by: "mallory@example.com" },
      { reason: "confirm-from-agent", by: AGENT },
    ]);
  });

  it("an expired plan is not applied; the approver is told, now and on every later reply", async () => {
    const w = await proposed();
    w.clock.now = new Date(w.clock.now.getTime() + 24 * 3600 * 1000 + 1);
    expect(await w.apply()).toEqual({ status: "refused", reason: "confirm-expired" });
    expect((await w.plans.get(w.runId))?.state).toBe("expired");
    expect(await w.apply({ replyId: "ses-reply-2" })).toEqual({
      status: "refused",
      reason: "confirm-not-pending",
    });
    expect(w.notices()).toEqual(["confirm-expired", "confirm-expired"]);
    expect(w.counts.get("issue_refund")).toBeUndefined();
  });

  it("an unclear reply applies nothing and tells the approver what to send; the plan still waits", async () => {
    const w = await proposed();
    for (const understood of ["nothing", "conflicting", "several-codes"] as const)
      expect(await w.apply({ action: "unclear", understood })).toEqual({
        status: "refused",
        reason: "confirm-unclear",
      });
    expect(w.notices()).toEqual(["confirm-no-decision", "confirm-ambiguous", "confirm-several-codes"]);
    expect((await w.plans.get(w.runId))?.state).toBe("pending");
    expect((await w.apply()).status).toBe("applied");
  });

  it("CANCEL discards the plan: nothing runs, and a later APPROVE finds it decided", async () => {
    const w = await proposed();
    expect(await w.apply({ action: "cancel" })).toEqual({ status: "cancelled" });
    expect(await w.apply()).toEqual({ status: "refused", reason: "confirm-not-pending" });
    expect(w.counts.get("issue_refund")).toBeUndefined();
    expect(await w.plans.get(w.runId)).toMatchObject({ state: "cancelled", decidedBy: APPROVER });
  });

  it("arguments changed after the card went out are not applied (the hash is recomputed)", async () => {
    const w = await proposed();
    const item = w.state.items.get(`plan#${w.runId}|plan`) as { ops: { input: unknown }[] };
    item.ops[0] = { ...item.ops[0], input: { note: "A-9999" } };
    expect(await w.apply()).toEqual({ status: "refused", reason: "plan-tampered" });
    expect((await w.plans.get(w.runId))?.state).toBe("tampered");
    expect(w.counts.get("issue_refund")).toBeUndefined();
    // G19: not applied is a failure someone must see, not only a state.
    expect(w.failures.reports).toEqual([
      expect.objectContaining({ class: "plan-failed", reason: "plan-tampered", runId: w.runId }),
    ]);
  });

  it("an unknown code, or a code of another agent's plan, is refused without a word", async () => {
    const w = await proposed();
    expect(await w.apply({ code: "ABCDEFGHJK" })).toEqual({
      status: "refused",
      reason: "confirm-code-unknown",
    });
    expect(await w.apply({ agent: "sales@agents.example.net" })).toEqual({
      status: "refused",
      reason: "confirm-wrong-agent",
    });
    expect(w.notices()).toEqual([]);
  });

  it("the budgets are checked again when applying: an operation over budget fails, and the rest stop", async () => {
    const w = await proposed();
    const day = w.clock.now.toISOString().slice(0, 10);
    await w.state.increment(`budget#tokens#agent#${AGENT}`, day, 5_000_000);
    const out = await w.apply();
    expect(out).toMatchObject({
      status: "failed",
      reason: "agent-tokens-per-day",
      results: [{ result: { ok: false, reason: "agent-tokens-per-day" } }],
    });
    expect(w.counts.get("issue_refund")).toBeUndefined();
  });
});
