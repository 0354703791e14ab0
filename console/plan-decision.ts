import { approversFor } from "../shared/agent/index.ts";
import { routingKey } from "../shared/mail/index.ts";
import { type ConfirmPayload, confirmEnvelopeSchema } from "../shared/payloads/index.ts";
import type { PlanRecord } from "../shared/ports/index.ts";
import type { Principal } from "./auth/principal.ts";
import type { ConsoleDeps } from "./deps.ts";

export type PlanDecision = "approve" | "cancel";

export type DecisionResult =
  | { readonly status: "queued" }
  | {
      readonly status: "refused";
      readonly reason: "no-plan" | "not-pending" | "expired" | "not-approver" | "already-decided";
    };

/** Marker items in `state`: one console decision per plan, so a second click (or a replayed POST) does nothing. */
export const decisionPk = (runId: string): string => `consoledecision#${runId}`;
const DECISION_TTL = 30 * 24 * 3600;

/**
 * An approver's Apply or Cancel in the console (G14). It goes the mailed confirmation's way: a confirm message on
 * the agent-step queue, which runs `applyConfirmation` there (approver re-checked, plan hash recomputed, every
 * gate re-run, pending → applying once). The console only refuses early what that path would refuse, and records
 * the decision once: the conditional marker makes a second click a no-op instead of a second message.
 */
type Refused = Extract<DecisionResult, { status: "refused" }>;
const refused = (reason: Refused["reason"]): Refused => ({ status: "refused", reason });

/**
 * Whether this principal may decide this plan now: what the apply path would refuse, refused early. The Apply
 * confirmation page asks it first, so it never asks about a plan nothing can be done with.
 */
export async function decisionAllowed(
  runId: string,
  principal: Principal,
  deps: ConsoleDeps,
): Promise<{ readonly status: "allowed"; readonly plan: PlanRecord & { readonly code: string } } | Refused> {
  const [plan, run, admin] = await Promise.all([
    deps.plans.get(runId),
    deps.runs.get(runId),
    deps.admin.snapshot(),
  ]);
  if (!plan?.code || !run) return refused("no-plan");
  const who = routingKey(principal.email);
  // The approvers the apply path will accept: the listed approvers of the plan's toolkits (or its proven sender).
  const runForApprovers = { sender: run.sender ? { routingKey: run.sender } : null } as Parameters<
    typeof approversFor
  >[1];
  if (!approversFor(plan, runForApprovers, admin).has(who)) return refused("not-approver");
  if (plan.state !== "pending") return refused("not-pending");
  if (plan.expiresAtIso && deps.now().toISOString() > plan.expiresAtIso) return refused("expired");
  return { status: "allowed", plan: { ...plan, code: plan.code } };
}

/** Whether a console decision is already recorded for the plan (its marker in `state`). */
export async function alreadyDecided(runId: string, deps: Pick<ConsoleDeps, "state">): Promise<boolean> {
  return (await deps.state.get(decisionPk(runId), "decision")) !== null;
}

export async function decidePlan(
  runId: string,
  decision: PlanDecision,
  principal: Principal,
  deps: ConsoleDeps,
): Promise<DecisionResult> {
  const allowed = await decisionAllowed(runId, principal, deps);
  if (allowed.status === "refused") return allowed;
  const { plan } = allowed;
  const who = routingKey(principal.email);
  const marked = await deps.state.putIfAbsent(
    decisionPk(runId),
    "decision",
    { by: who, decision, at: deps.now().toISOString() },
    DECISION_TTL,
  );
  if (!marked.ok) return refused("already-decided");
  const entry = await deps.audit.record({
    actor: principal.email,
    action: decision === "approve" ? "plan-apply" : "plan-cancel",
    table: "plans",
    key: `runId=${JSON.stringify(runId)}`,
    before: { state: plan.state, operations: plan.ops.length },
    after: { decision, code: plan.code },
  });
  const confirm: ConfirmPayload = {
    code: plan.code,
    action: decision,
    // One notice at most per plan if the apply path has something to tell the approver (it mails them).
    replyId: `console-${runId}`.slice(0, 200),
    hop: 0,
    sender: who,
    agent: plan.agent,
    // A person in the console, never an agent's mail (G5): the apply path still refuses agent addresses.
    agentOriginated: false,
  };
  // Checked with the consumer's own schema: the console cannot send what agent-step would refuse.
  const body = confirmEnvelopeSchema.parse({ confirm });
  try {
    await deps.enqueueStep(body);
  } catch (err) {
    await deps.audit.settle(entry, "failed", String((err as Error)?.message ?? err));
    throw err;
  }
  await deps.audit.settle(entry, "applied", "queued for agent-step: applyConfirmation");
  return { status: "queued" };
}
