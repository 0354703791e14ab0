import type { AdminSnapshot } from "../../admin/index.ts";
import { formatCode } from "../../mail/index.ts";
import type { OutboundRequest } from "../../payloads/index.ts";
import type { PlanBook, PlanRecord, RequesterProof, WebhookSink } from "../../ports/index.ts";
import type { LoadedRun, StepDeps, TraceSink } from "../ports.ts";
import { approversFor } from "./apply-plan.ts";
import { renderCard } from "./confirm-card.ts";
import { newConfirmCode, planHash } from "./plan.ts";

/** How long a confirm card's code stays valid. */
export const PLAN_TTL_MS = 24 * 3600 * 1000;

/**
 * Whom the card is addressed to: the approvers as listed (their routing keys are what confirm), and the run's
 * proven sender when they may confirm. Unfiltered: the sender can also be a listed approver.
 */
export function cardAddressees(approvers: readonly string[], run: LoadedRun, admin: AdminSnapshot): string[] {
  const to = admin.approvers.filter((a) => approvers.includes(a.address.toLowerCase())).map((a) => a.address);
  if (approvers.includes(run.sender?.routingKey ?? "")) to.push(run.sender?.address ?? "");
  return to;
}

export function cardSubject(operations: number, code: string): string {
  return `Approval needed (${operations} operation${operations === 1 ? "" : "s"}) - code ${formatCode(code)}`;
}

/** An open plan sealed: a fresh confirm code, the hash the code is bound to, its deadline, who asked. */
async function sealPlan(
  plan: PlanRecord,
  run: LoadedRun,
  agent: string,
  deps: Pick<Parameters<typeof sendPlanCard>[0], "plans" | "now" | "requester">,
): Promise<PlanRecord> {
  const code = newConfirmCode();
  const expiresAtIso = new Date(deps.now().getTime() + PLAN_TTL_MS).toISOString();
  const requester = await deps.requester(run);
  await deps.plans.seal(run.runId, agent, {
    code,
    hash: planHash(plan),
    expiresAtIso,
    ...(requester ? { requester } : {}),
  });
  return (await deps.plans.get(run.runId)) ?? plan;
}

/**
 * G14, when a run ends: seal its open plan (a code, and the hash the code is bound to) and mail the card, once per
 * run, to whoever may confirm it. A plan nobody may confirm is marked unconfirmable instead.
 */
export function sendPlanCard(deps: {
  readonly plans: Pick<PlanBook, "get" | "move" | "seal">;
  loadAdmin(): Promise<AdminSnapshot>;
  readonly trace: TraceSink;
  sendOutbound(request: OutboundRequest): Promise<void>;
  now(): Date;
  /** Signed events out: `plan.pending` once the card is out. */
  readonly webhooks: WebhookSink;
  /** Who asked, from the run's stored trigger message (requester.ts); null for a scheduled run or a message gone. */
  requester(run: LoadedRun): Promise<RequesterProof | null>;
}): NonNullable<StepDeps["afterRun"]> {
  const { plans } = deps;
  return async (run, agent) => {
    const plan = await plans.get(run.runId);
    if (!plan || plan.ops.length === 0 || (plan.state !== "open" && plan.state !== "pending")) return;
    const admin = await deps.loadAdmin();
    const approvers = [...approversFor(plan, run, admin)];
    if (approvers.length === 0) {
      await plans.move(run.runId, "open", "unconfirmable");
      await deps.trace.append(run.runId, {
        type: "plan-unconfirmable",
        round: 0,
        data: { reason: "no-approver" },
      });
      return;
    }
    const sealed = plan.state === "open" ? await sealPlan(plan, run, agent.address, deps) : plan;
    if (!sealed.code) return;
    const to = cardAddressees(approvers, run, admin);
    await deps.sendOutbound({
      requestId: `card-${run.runId}`,
      agent: agent.address,
      mode: "new",
      to: [...new Set(to.filter(Boolean))],
      cc: [],
      bcc: [],
      subject: cardSubject(sealed.ops.length, sealed.code),
      body: renderCard({
        agent: agent.address,
        code: sealed.code,
        ops: sealed.ops,
        expiresAt: sealed.expiresAtIso ?? "",
        requester: sealed.requester ?? null,
        scheduled: run.trigger.kind === "responsibility" ? run.trigger.responsibility.id : null,
      }),
      attachmentIds: [],
      correlationId: run.correlationId,
      runId: run.runId,
      kind: "agent",
      // The operator's approvers (and the proven sender), chosen here from the admin tables, not by the model: the
      // agent's outbound rules are for where the model may write, so they do not stand between a plan and G14.
      recipientsFrom: "approvers",
    });
    await deps.trace.append(run.runId, {
      type: "plan-card-sent",
      round: 0,
      data: { operations: sealed.ops.length, approvers: to.length },
    });
    await deps.webhooks.emit({
      type: "plan.pending",
      key: run.runId,
      data: {
        agent: agent.address,
        runId: run.runId,
        operations: sealed.ops.length,
        tools: sealed.ops.map((o) => o.tool),
        expiresAt: sealed.expiresAtIso ?? null,
      },
    });
  };
}
