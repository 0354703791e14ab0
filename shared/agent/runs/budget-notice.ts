import { createHash } from "node:crypto";
import type { AgentItem } from "../../admin/index.ts";
import type { OutboundRequest } from "../../payloads/index.ts";
import { noticeRequest } from "../../payloads/index.ts";
import type { BudgetReason, LoadedRun } from "../ports.ts";

/**
 * The "budget exceeded" notice (G10) to a run's proven sender; a scheduled run has nobody to tell. Its request id
 * is the sender and the day, so the outbound sends at most one a day to a sender however often it is asked to.
 */
export function budgetNoticeRequest(
  run: LoadedRun,
  agent: AgentItem,
  reason: BudgetReason,
  now: Date,
): OutboundRequest | null {
  if (!run.sender) return null;
  const day = now.toISOString().slice(0, 10);
  // The outbound renders a notice from its reason code (G6); the budget codes name which cap, the notice only
  // whose (the sender's own, or the agent's for everyone).
  return noticeRequest({
    requestId: `budget-${createHash("sha256").update(`${run.sender.routingKey}|${day}`).digest("hex").slice(0, 32)}`,
    from: agent.address,
    to: run.sender.address,
    reason: reason.startsWith("sender-") ? "sender-budget" : "agent-budget",
    // A fresh notice: the run's trigger is the sender's own mail, and notices are Auto-Submitted anyway (G5).
    inboundHop: 0,
    correlationId: run.correlationId,
    runId: run.runId,
  });
}
