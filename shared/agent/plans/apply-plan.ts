import type { AdminSnapshot, AgentItem } from "../../admin/index.ts";
import { routingKey } from "../../gate/index.ts";
import type { ConfirmPayload, OutboundRequest, Unclear } from "../../payloads/index.ts";
import type { FailureSink, PlanPort, PlanRecord, WebhookSink } from "../../ports/index.ts";
import type { LoadedRun, TraceSink } from "../ports.ts";
import { type ApplyOneDeps, applyOne } from "./apply-one.ts";
import { outcomeMailRequest } from "./outcome-mail.ts";
import { planHash } from "./plan.ts";
import {
  judgePlan,
  type OpResult,
  opName,
  outcomeSummary,
  type PlanVerdict,
  storedResults,
} from "./plan-outcome.ts";

export type { OpResult } from "./plan-outcome.ts";

export interface ApplyDeps extends ApplyOneDeps {
  readonly plans: PlanPort;
  loadAdmin(): Promise<AdminSnapshot>;
  getRun(runId: string): Promise<LoadedRun | null>;
  readonly trace: TraceSink;
  /** Signed events out: `plan.applied` / `plan.failed` / `plan.cancelled`. */
  readonly webhooks: WebhookSink;
  /** G19: a plan that did not run as approved is a `plan-failed` failure (metric, alarm, feed, trace, run row). */
  readonly failures: FailureSink;
  /** Tell the approver, with engine-written text, why their reply changed nothing (and what to send). */
  notify(msg: ConfirmPayload, reason: ConfirmNotice): Promise<void>;
  /** Queue the approver's confirmation notice: what ran and what failed (outcome-mail.ts). */
  sendOutbound(request: OutboundRequest): Promise<void>;
  /** Give the agent a new round with the results; `summary` is the engine's outcome line. */
  continueRun(run: LoadedRun, agent: AgentItem, summary: string, results: readonly OpResult[]): Promise<void>;
  now(): Date;
}

export type ConfirmNotice =
  | "confirm-no-decision"
  | "confirm-ambiguous"
  | "confirm-several-codes"
  | "confirm-expired"
  | "confirm-already-decided";

const UNCLEAR_NOTICE: Record<Unclear, ConfirmNotice> = {
  nothing: "confirm-no-decision",
  conflicting: "confirm-ambiguous",
  "several-codes": "confirm-several-codes",
};

/** Why a confirmation moved nothing (G14); recorded by the caller, and some answered with a ConfirmNotice. */
export type ApplyRefusal =
  | "confirm-agent-originated"
  | "confirm-code-unknown"
  | "confirm-wrong-agent"
  | "confirm-from-agent"
  | "confirm-not-approver"
  | "confirm-not-pending"
  | "confirm-expired"
  | "confirm-unclear"
  | "plan-tampered";

export type ApplyOutcome =
  | { readonly status: "applied"; readonly results: readonly OpResult[] }
  /** Approved, but not every operation succeeded (or the agent was gone): `reason` is the first failure's. */
  | { readonly status: "failed"; readonly reason: string; readonly results: readonly OpResult[] }
  | { readonly status: "cancelled" }
  | { readonly status: "refused"; readonly reason: ApplyRefusal };

/** The reply a decision came from (its SES id, or the console's), and who sent it: only its redelivery resumes. */
const resumeKey = (msg: ConfirmPayload): string => `${msg.replyId}|${msg.sender}`;

/** Who may confirm: the listed approvers of every toolkit that granted an operation, or the proven sender. */
export function approversFor(plan: PlanRecord, run: LoadedRun, admin: AdminSnapshot): Set<string> {
  const kits = new Set(plan.ops.flatMap((o) => o.toolkits));
  const out = new Set(admin.approvers.filter((a) => kits.has(a.toolkit)).map((a) => routingKey(a.address)));
  if (run.sender && admin.toolkits.some((k) => kits.has(k.id) && k.confirmBySender))
    out.add(run.sender.routingKey);
  return out;
}

/**
 * Apply or cancel a confirmed plan (G14). Only a DKIM-proven approver's own mail (never an agent's) moves a
 * pending plan, once; the hash is recomputed over the stored plan so arguments altered after the card went out
 * are not applied; every gate is re-run for each operation, in order, with idempotency keys.
 */
export async function applyConfirmation(msg: ConfirmPayload, deps: ApplyDeps): Promise<ApplyOutcome> {
  const refused = (reason: ApplyRefusal): ApplyOutcome => ({ status: "refused", reason });
  if (msg.agentOriginated) return refused("confirm-agent-originated");
  const loc = await deps.plans.runForCode(msg.code);
  if (!loc) return refused("confirm-code-unknown");
  if (loc.agent !== msg.agent) return refused("confirm-wrong-agent");
  const [admin, plan, run] = await Promise.all([
    deps.loadAdmin(),
    deps.plans.get(loc.runId),
    deps.getRun(loc.runId),
  ]);
  if (!plan || !run || plan.code !== msg.code) return refused("confirm-code-unknown");
  const record = (type: string, data: Record<string, unknown>) =>
    deps.trace.append(run.runId, { type, round: 0, data });
  // Belt and braces beside the recursion header: an agent address never approves.
  if (admin.agents.some((a) => a.address === msg.sender)) {
    await record("confirm-refused", { reason: "confirm-from-agent", by: msg.sender });
    return refused("confirm-from-agent");
  }
  if (!approversFor(plan, run, admin).has(msg.sender)) {
    await record("confirm-refused", { reason: "confirm-not-approver", by: msg.sender });
    return refused("confirm-not-approver");
  }
  // From here the sender is a listed approver: a reply that changes nothing is answered, so nobody believes a
  // refund was stopped (or made) when it was not.
  // The delivery that moved the plan to applying, redelivered: the one before it died mid-apply (a timeout, a
  // crash). It finishes the apply instead of leaving the plan in `applying` with nobody told (G19): operations that
  // finished return their recorded result, and one cut off runs again under the same idempotency key.
  const resuming =
    plan.state === "applying" && msg.action === "approve" && plan.decidedReply === resumeKey(msg);
  if (plan.state !== "pending" && !resuming) {
    await deps.notify(msg, plan.state === "expired" ? "confirm-expired" : "confirm-already-decided");
    return refused("confirm-not-pending");
  }
  if (!resuming && plan.expiresAtIso && deps.now().toISOString() > plan.expiresAtIso) {
    await deps.plans.move(run.runId, "pending", "expired");
    await record("plan-expired", { by: msg.sender });
    await deps.notify(msg, "confirm-expired");
    return refused("confirm-expired");
  }
  if (msg.action === "unclear") {
    const understood = msg.understood ?? "nothing";
    await record("confirm-unclear", { by: msg.sender, understood });
    await deps.notify(msg, UNCLEAR_NOTICE[understood]);
    return refused("confirm-unclear");
  }
  if (msg.action === "cancel") return cancelPlan(msg, plan, run, deps, record);
  // pending → applying is the once-only step: another reply finds the plan no longer pending.
  const decided = {
    decidedBy: msg.sender,
    decidedAt: deps.now().toISOString(),
    decidedReply: resumeKey(msg),
  };
  if (!resuming && !(await deps.plans.move(run.runId, "pending", "applying", decided)))
    return refused("confirm-not-pending");
  if (resuming) await record("plan-resumed", { by: msg.sender });
  if (planHash({ agent: plan.agent, runId: plan.runId, ops: plan.ops }) !== plan.hash)
    return refuseTampered(msg, run, deps, record);
  const agent = admin.agents.find((a) => a.address === run.agent && a.enabled);
  const results = await runOperations(plan, { run, agent, admin, deps, record });
  const verdict: PlanVerdict = agent
    ? judgePlan(results)
    : { status: "failed", reason: "agent-missing", first: results[0] as OpResult };
  return finish({ msg, plan, run, agent, verdict, results }, deps);
}

/** Appends one event to the run's trace, at round 0 (a plan outlives its rounds). */
type PlanEventRecorder = (type: string, data: Record<string, unknown>) => Promise<void>;

/** A listed approver's cancel of a pending plan: once (a second reply finds it no longer pending). */
async function cancelPlan(
  msg: ConfirmPayload,
  plan: PlanRecord,
  run: LoadedRun,
  deps: ApplyDeps,
  record: PlanEventRecorder,
): Promise<ApplyOutcome> {
  const decided = { decidedBy: msg.sender, decidedAt: deps.now().toISOString() };
  if (!(await deps.plans.move(run.runId, "pending", "cancelled", decided)))
    return { status: "refused", reason: "confirm-not-pending" };
  await record("plan-cancelled", { by: msg.sender });
  await deps.webhooks.emit({
    type: "plan.cancelled",
    key: run.runId,
    data: { agent: run.agent, runId: run.runId, operations: plan.ops.length, decidedBy: msg.sender },
  });
  return { status: "cancelled" };
}

/** The stored operations no longer match the hash the approver confirmed: nothing runs, and it is reported (G19). */
async function refuseTampered(
  msg: ConfirmPayload,
  run: LoadedRun,
  deps: ApplyDeps,
  record: PlanEventRecorder,
): Promise<ApplyOutcome> {
  await deps.failures.report({
    class: "plan-failed",
    reason: "plan-tampered",
    detail: "the stored operations no longer match the confirmed hash: nothing was applied",
    agent: run.agent,
    runId: run.runId,
    correlationId: run.correlationId,
  });
  await deps.plans.move(run.runId, "applying", "tampered");
  await record("plan-tampered", { by: msg.sender });
  return { status: "refused", reason: "plan-tampered" };
}

/**
 * The approved operations in card order, each through every gate again (apply-one.ts). Later operations may depend
 * on an earlier one: after a failure (or with the agent gone) nothing more runs, and each says so in the trace.
 */
async function runOperations(
  plan: PlanRecord,
  ctx: {
    run: LoadedRun;
    agent: AgentItem | undefined;
    admin: AdminSnapshot;
    deps: ApplyDeps;
    record(type: string, data: Record<string, unknown>): Promise<void>;
  },
): Promise<OpResult[]> {
  const { run, agent, admin, deps, record } = ctx;
  const results: OpResult[] = [];
  const of = plan.ops.length;
  for (const [i, op] of plan.ops.entries()) {
    const base = { number: i + 1, tool: op.tool, summary: op.summary };
    if (!agent || results.some((r) => r.result === null || !r.result.ok)) {
      results.push({ ...base, result: null });
      await record("plan-op", { index: i, number: i + 1, of, tool: op.tool, status: "not-run", ok: false });
      continue;
    }
    const result = await applyOne(op, i, { run, agent, admin, deps });
    results.push({ ...base, result, at: deps.now().toISOString() });
    await record("plan-op", {
      index: i,
      number: i + 1,
      of,
      tool: op.tool,
      status: result.ok ? "ok" : "failed",
      ok: result.ok,
      ...(result.ok ? {} : { reason: result.reason }),
    });
  }
  return results;
}

/**
 * The plan's end, as it happened: its state and every operation's result on the plan, the trace, the G19 failure
 * when it failed (reported before the state moves, so a crash between them still pages someone), the signed event,
 * the approver's confirmation notice, and the model's continuation with each result.
 */
async function finish(
  o: {
    msg: ConfirmPayload;
    plan: PlanRecord;
    run: LoadedRun;
    agent: AgentItem | undefined;
    verdict: PlanVerdict;
    results: readonly OpResult[];
  },
  deps: ApplyDeps,
): Promise<ApplyOutcome> {
  const { msg, plan, run, agent, verdict, results } = o;
  const finishedAt = deps.now().toISOString();
  const of = results.length;
  if (verdict.status === "failed") {
    const said = verdict.first.result && !verdict.first.result.ok ? verdict.first.result.detail : undefined;
    await deps.failures.report({
      class: "plan-failed",
      reason: verdict.reason,
      detail: `${agent ? opName(verdict.first, of) : `the agent ${run.agent} is gone or disabled; none of ${of} operation(s)`} ${agent ? "failed" : "ran"}${said ? `: ${String(said)}` : ""}`,
      agent: run.agent,
      runId: run.runId,
      correlationId: run.correlationId,
    });
  }
  await deps.plans.move(run.runId, "applying", verdict.status, {
    results: storedResults(results),
    finishedAt,
    ...(verdict.status === "failed" ? { failedReason: verdict.reason } : {}),
  });
  await deps.trace.append(run.runId, {
    type: "plan-finished",
    round: 0,
    data: {
      state: verdict.status,
      ...(verdict.status === "failed" ? { reason: verdict.reason } : {}),
      operations: of,
      succeeded: results.filter((r) => r.result?.ok === true).length,
    },
  });
  const failed = results.filter((r) => r.result !== null && !r.result.ok).map((r) => r.tool);
  await deps.webhooks.emit({
    type: verdict.status === "applied" ? "plan.applied" : "plan.failed",
    key: run.runId,
    data: {
      agent: run.agent,
      runId: run.runId,
      decidedBy: msg.sender,
      tools: results.map((r) => r.tool),
      failed,
      ...(verdict.status === "failed"
        ? {
            reason: verdict.reason,
            succeeded: results.filter((r) => r.result?.ok === true).map((r) => r.tool),
            notRun: results.filter((r) => r.result === null).map((r) => r.tool),
          }
        : {}),
    },
  });
  if (plan.code)
    await deps.sendOutbound(
      outcomeMailRequest({
        runId: run.runId,
        agent: run.agent,
        correlationId: run.correlationId,
        to: msg.sender,
        code: plan.code,
        finishedAt,
        verdict,
        results,
        continues: agent !== undefined,
      }),
    );
  // No agent, no continuation: there is nobody to continue the conversation (the approver was told above).
  if (agent) await deps.continueRun(run, agent, outcomeSummary(verdict, results, msg.sender), results);
  return verdict.status === "applied"
    ? { status: "applied", results }
    : { status: "failed", reason: verdict.reason, results };
}
