import { createHash } from "node:crypto";
import type { AgentItem } from "../../shared/admin/schema.ts";
import {
  type ApplyDeps,
  applyConfirmation,
  approversFor,
  type ConfirmMessage,
} from "../../shared/agent/apply-plan.ts";
import { renderCard } from "../../shared/agent/confirm-card.ts";
import { formatCode } from "../../shared/agent/confirm-reading.ts";
import type { CallCheck } from "../../shared/agent/dispatch.ts";
import { canonicalJson, newConfirmCode, planHash } from "../../shared/agent/plan.ts";
import type { RunRecord, StepDeps, Transcript } from "../../shared/agent/ports.ts";
import type { AwsClients } from "../../shared/aws/clients.ts";
import type { Resources } from "../../shared/config/resources.ts";
import { noticeRequest } from "../../shared/outbound/request.ts";
import { PlanStore } from "../../shared/store/plan-store.ts";
import type { Stores } from "../../shared/store/stores.ts";
import type { OutboundRequest } from "../../shared/tools/context.ts";
import { failure, success, type ToolResult } from "../../shared/tools/tool.ts";

/** How long a confirm card's code stays valid. */
export const PLAN_TTL_MS = 24 * 3600 * 1000;

/**
 * G14 wiring: `propose` (a confirm tool's call becomes a plan operation), `afterRun` (seal the plan, mail the
 * card), and `applyConfirm` (an approver's reply applies or cancels it).
 */
export function planWiring(opts: {
  stores: Stores;
  clients: AwsClients;
  resources: Resources;
  step: StepDeps;
  sendOutbound(req: OutboundRequest): Promise<void>;
  egressFor(agent: AgentItem): CallCheck;
  now: () => Date;
}) {
  const { stores, step } = opts;
  const plans = new PlanStore({
    dynamo: opts.clients.dynamo,
    tables: opts.resources.tables,
    state: stores.state,
  });

  async function propose(
    run: RunRecord,
    agent: AgentItem,
    call: { id: string; name: string },
    input: unknown,
    toolkits: readonly string[],
  ): Promise<ToolResult> {
    const tool = step.registry.get(call.name);
    const summary = `${tool?.displayName ?? call.name}: ${canonicalJson(input).slice(0, 160)}`;
    const added = await plans.add(run.runId, agent.address, {
      callId: call.id,
      tool: call.name,
      input,
      summary,
      toolkits,
    });
    if (added === "closed") return failure("plan-closed", "this run's plan was already sent for approval");
    return success({
      status: "proposed",
      summary,
      note: "Not done yet: when this conversation ends, an approver is asked to confirm it by mail. Do not say it has been done.",
    });
  }

  async function afterRun(run: RunRecord, agent: AgentItem): Promise<void> {
    const plan = await plans.get(run.runId);
    if (!plan || plan.ops.length === 0 || (plan.state !== "open" && plan.state !== "pending")) return;
    const admin = await step.loadAdmin();
    const approvers = [...approversFor(plan, run, admin)];
    if (approvers.length === 0) {
      await plans.move(run.runId, "open", "unconfirmable");
      await step.events.append(run.runId, {
        type: "plan-unconfirmable",
        round: 0,
        data: { reason: "no-approver" },
      });
      return;
    }
    let sealed = plan;
    if (plan.state === "open") {
      const code = newConfirmCode();
      const expiresAtIso = new Date(opts.now().getTime() + PLAN_TTL_MS).toISOString();
      await plans.seal(run.runId, agent.address, { code, hash: planHash(plan), expiresAtIso });
      sealed = (await plans.get(run.runId)) ?? plan;
    }
    if (!sealed.code) return;
    // The card is addressed to the approvers as listed (their routing keys are what confirm); one card per run.
    const to = admin.approvers
      .filter((a) => approvers.includes(a.address.toLowerCase()))
      .map((a) => a.address);
    if (approvers.includes(run.sender?.routingKey ?? "")) to.push(run.sender?.address ?? "");
    await opts.sendOutbound({
      requestId: `card-${run.runId}`,
      agent: agent.address,
      mode: "new",
      to: [...new Set(to.filter(Boolean))],
      cc: [],
      bcc: [],
      subject: `Approval needed (${sealed.ops.length} operation${sealed.ops.length === 1 ? "" : "s"}) - code ${formatCode(sealed.code)}`,
      body: renderCard({
        agent: agent.address,
        code: sealed.code,
        ops: sealed.ops,
        expiresAt: sealed.expiresAtIso ?? "",
      }),
      attachmentIds: [],
      correlationId: run.correlationId,
      runId: run.runId,
      kind: "agent",
    });
    await step.events.append(run.runId, {
      type: "plan-card-sent",
      round: 0,
      data: { operations: sealed.ops.length, approvers: to.length },
    });
  }

  const applyDeps: ApplyDeps = {
    plans,
    loadAdmin: () => step.loadAdmin(),
    registry: step.registry,
    getRun: (id) => step.runs.get(id),
    checks: (run, agent) =>
      step
        .checks?.(run, { system: "", messages: [], lastRound: 0, untrustedText: "" }, agent)
        .filter((_c, i) => i === 0) ?? [],
    budgets: step.budgets,
    cache: step.cache,
    makeToolContext: (run, agent, call, key) => step.makeToolContext(run, agent, 0, call, key),
    events: step.events,
    now: opts.now,
    async notify(msg, reason) {
      await opts.sendOutbound(
        noticeRequest({
          // one notice per reply, however often the confirmation is redelivered
          requestId: `confirm-notice-${createHash("sha256").update(`${msg.replyId}|${msg.agent}`).digest("hex").slice(0, 32)}`,
          from: msg.agent,
          to: msg.sender,
          reason,
          inboundHop: msg.hop,
          correlationId: msg.replyId,
          code: msg.code,
        }),
      );
    },
    async continueRun(run, agent, summary, results) {
      // A new run continues the conversation with the results, so the agent can tell the sender what happened.
      const runId = `${run.runId}-applied`;
      const original = (await step.transcripts.load(run.runId)) as Transcript | null;
      if (!original) return;
      const text = `${summary} The proposed operations were applied. Results:\n${JSON.stringify(
        results.map((r) => ({
          tool: r.tool,
          summary: r.summary,
          ok: r.result.ok,
          ...(r.result.ok ? { data: r.result.data } : { error: r.result.reason }),
        })),
      )}`;
      const stored = await stores.runs.get(run.runId);
      if (!stored) return;
      const created = await stores.runs.create({
        runId,
        agent: agent.address,
        kind: stored.kind,
        messageId: stored.messageId,
        responsibilityId: stored.responsibilityId,
        sender: stored.sender,
        threadId: stored.threadId,
        maxRounds: stored.maxRounds,
        correlationId: stored.correlationId,
        transcriptKey: `transcripts/${runId}.json`,
      });
      if (created.ok) {
        await step.transcripts.save(runId, {
          ...original,
          messages: [...original.messages, { role: "user", content: [{ type: "text", text }] }],
          lastRound: 0,
        });
      }
      await step.enqueue({ runId, round: 1 });
    },
  };

  return {
    propose,
    afterRun,
    applyConfirm: (msg: ConfirmMessage) => applyConfirmation(msg, applyDeps),
    plans,
  };
}
