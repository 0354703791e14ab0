import { createHash } from "node:crypto";
import type { AgentItem } from "../admin/schema.ts";
import type { OutboundRequest } from "../tools/context.ts";
import type { BudgetReason, RunRecord } from "./ports.ts";

/**
 * The "budget exceeded" notice (G10) to a run's proven sender; a scheduled run has nobody to tell. Its request id
 * is the sender and the day, so the outbound sends at most one a day to a sender however often it is asked to.
 */
export function budgetNoticeRequest(
  run: RunRecord,
  agent: AgentItem,
  reason: BudgetReason,
  now: Date,
): OutboundRequest | null {
  if (!run.sender) return null;
  const day = now.toISOString().slice(0, 10);
  return {
    requestId: `budget-${createHash("sha256").update(`${run.sender.routingKey}|${day}`).digest("hex").slice(0, 32)}`,
    agent: agent.address,
    mode: "new",
    to: [run.sender.address],
    cc: [],
    bcc: [],
    body: reason,
    attachmentIds: [],
    correlationId: run.correlationId,
    kind: "notice",
  };
}
