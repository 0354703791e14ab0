import type { AdminSnapshot, AgentItem, ToolkitItem } from "../../admin/index.ts";
import { routingKey } from "../../gate/index.ts";
import type { ConfirmMessage, Unclear } from "../../messages/index.ts";
import type { EventSink, PlanPort, PlanRecord, StoredOperation } from "../../ports/index.ts";
import type { ToolContext, ToolRegistry } from "../../tool-framework/index.ts";
import { type ToolResult, toolFailure } from "../../tool-framework/index.ts";
import type { CallCheck } from "../loop/call-check.ts";
import type { ToolCallRequest, ToolResultCache } from "../loop/dispatch.ts";
import { checkToolCall } from "../loop/toolkits.ts";
import type { BudgetGate, LoadedRun, RunEventSink } from "../ports.ts";
import { planHash } from "./plan.ts";

export interface ApplyDeps {
  readonly plans: PlanPort;
  loadAdmin(): Promise<AdminSnapshot>;
  readonly registry: ToolRegistry;
  getRun(runId: string): Promise<LoadedRun | null>;
  checks(run: LoadedRun, agent: AgentItem): readonly CallCheck[];
  readonly budgets: BudgetGate;
  readonly cache: ToolResultCache;
  makeToolContext(
    run: LoadedRun,
    agent: AgentItem,
    call: ToolCallRequest,
    key: string,
    grantedBy: readonly ToolkitItem[],
  ): ToolContext;
  readonly events: RunEventSink;
  /** Signed events out: `plan.applied` / `plan.cancelled`. */
  readonly webhooks?: EventSink;
  /** Tell the approver, with engine-written text, why their reply changed nothing (and what to send). */
  notify(msg: ConfirmMessage, reason: ConfirmNotice): Promise<void>;
  /** Give the agent a new round with the results. */
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

export interface OpResult {
  readonly tool: string;
  readonly summary: string;
  readonly result: ToolResult;
}

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
  | "plan-tampered"
  | "agent-missing";

export type ApplyOutcome =
  | { readonly status: "applied"; readonly results: readonly OpResult[] }
  | { readonly status: "cancelled" }
  | { readonly status: "refused"; readonly reason: ApplyRefusal };

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
export async function applyConfirmation(msg: ConfirmMessage, deps: ApplyDeps): Promise<ApplyOutcome> {
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
    deps.events.append(run.runId, { type, round: 0, data });
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
  if (plan.state !== "pending") {
    await deps.notify(msg, plan.state === "expired" ? "confirm-expired" : "confirm-already-decided");
    return refused("confirm-not-pending");
  }
  if (plan.expiresAtIso && deps.now().toISOString() > plan.expiresAtIso) {
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
  if (msg.action === "cancel") {
    if (!(await deps.plans.move(run.runId, "pending", "cancelled", { decidedBy: msg.sender })))
      return refused("confirm-not-pending");
    await record("plan-cancelled", { by: msg.sender });
    await deps.webhooks?.emit({
      type: "plan.cancelled",
      key: run.runId,
      data: { agent: run.agent, runId: run.runId, operations: plan.ops.length, decidedBy: msg.sender },
    });
    return { status: "cancelled" };
  }
  // pending → applying is the once-only step: a replayed confirmation finds the plan no longer pending.
  if (!(await deps.plans.move(run.runId, "pending", "applying", { decidedBy: msg.sender })))
    return refused("confirm-not-pending");
  if (planHash({ agent: plan.agent, runId: plan.runId, ops: plan.ops }) !== plan.hash) {
    await deps.plans.move(run.runId, "applying", "tampered");
    await record("plan-tampered", { by: msg.sender });
    return refused("plan-tampered");
  }
  const agent = admin.agents.find((a) => a.address === run.agent && a.enabled);
  if (!agent) return refused("agent-missing");
  const results: OpResult[] = [];
  for (const [i, op] of plan.ops.entries()) {
    const result = await applyOne(op, i, { run, agent, admin, deps });
    results.push({ tool: op.tool, summary: op.summary, result });
    await record("plan-op", {
      index: i,
      tool: op.tool,
      ok: result.ok,
      ...(result.ok ? {} : { reason: result.reason }),
    });
    if (!result.ok) break; // later operations may depend on this one: stop, and say so
  }
  await deps.plans.move(run.runId, "applying", "applied", {
    results: results.map((r) => ({ tool: r.tool, ok: r.result.ok })),
  });
  await deps.webhooks?.emit({
    type: "plan.applied",
    key: run.runId,
    data: {
      agent: run.agent,
      runId: run.runId,
      decidedBy: msg.sender,
      tools: results.map((r) => r.tool),
      failed: results.filter((r) => !r.result.ok).map((r) => r.tool),
    },
  });
  await deps.continueRun(run, agent, `Approved by ${msg.sender}.`, results);
  return { status: "applied", results };
}

async function applyOne(
  op: StoredOperation,
  index: number,
  ctx: { run: LoadedRun; agent: AgentItem; admin: AdminSnapshot; deps: ApplyDeps },
): Promise<ToolResult> {
  const { run, agent, admin, deps } = ctx;
  const gate = checkToolCall(
    {
      agent: agent.address,
      sender: run.sender,
      kind: run.kind,
      toolkits: admin.toolkits,
      registry: deps.registry,
    },
    op.tool,
  );
  if (!gate.ok) return toolFailure(gate.reason, `${op.tool} is no longer granted`);
  // The toolkits that grant it now (G11), re-read like every other gate at apply time.
  const grantedBy = admin.toolkits.filter((k) => gate.toolkits.includes(k.id));
  const parsed = gate.tool.input.safeParse(op.input);
  if (!parsed.success) return toolFailure("tool-input-invalid", "stored arguments no longer validate");
  for (const check of deps.checks(run, agent)) {
    const v = await check("input", { name: op.tool, input: parsed.data, grantedBy });
    if (!v.ok) return toolFailure(v.reason, v.detail);
  }
  const budget = await deps.budgets.beforeInference(run, agent, 2);
  if (!budget.ok) return toolFailure(budget.reason, "budget exceeded");
  const key = `plan:${run.runId}:${index}`;
  const cached = await deps.cache.get(key);
  if (cached) return cached;
  const call: ToolCallRequest = { id: op.callId, name: op.tool, input: parsed.data };
  let result: ToolResult;
  try {
    result = await gate.tool.use(deps.makeToolContext(run, agent, call, key, grantedBy), parsed.data);
  } catch (err) {
    result = toolFailure(
      "tool-error",
      `${op.tool} failed: ${(err as Error)?.message ?? String(err)}`.slice(0, 500),
    );
  }
  if (result.ok) {
    for (const check of deps.checks(run, agent)) {
      const v = await check("result", { name: op.tool, input: parsed.data, result, grantedBy });
      if (!v.ok) {
        result = toolFailure(v.reason, v.detail);
        break;
      }
    }
  }
  await deps.cache.put(key, result);
  return result;
}
