// The approver's confirmation notice (G14, G19): after an approved plan ran, the approver who decided is told what
// ran and what failed, operation by operation, numbered as the card numbered them. Engine-written frame; the
// operations' summaries (model-written) and the tools' failure details (the tools' words) are escaped as the card
// escapes model text, each after an engine label, so none of it starts a line. The code is shown as the card shows
// it, never beside APPROVE or CANCEL: this mail pasted back confirms nothing.

import { formatCode } from "../../mail/index.ts";
import type { OutboundRequest } from "../../payloads/index.ts";
import { cardText } from "./card-text.ts";
import { type OpResult, opName, type PlanVerdict } from "./plan-outcome.ts";

export function outcomeSubject(verdict: PlanVerdict, operations: number, code: string): string {
  const what =
    verdict.status === "applied"
      ? `Applied (${operations} operation${operations === 1 ? "" : "s"})`
      : `FAILED: not everything you approved was done (${verdict.reason})`;
  return `${cardText(what)} - code ${formatCode(code)}`;
}

function resultLine(r: OpResult): string {
  if (r.result === null) return "not run: an earlier operation failed, so this one was never started";
  if (r.result.ok) return "done";
  const detail = String(r.result.detail ?? "");
  return `FAILED (${cardText(r.result.reason)})${detail ? `, the tool said: ${cardText(detail.slice(0, 300))}` : ""}`;
}

export function renderOutcome(input: {
  agent: string;
  code: string;
  decidedBy: string;
  finishedAt: string;
  verdict: PlanVerdict;
  results: readonly OpResult[];
  /** Whether the agent continues the conversation (false when it is gone). */
  continues: boolean;
}): string {
  const { verdict, results } = input;
  const of = results.length;
  const lines = [
    verdict.status === "applied"
      ? `The plan you approved for the agent ${input.agent} ran: ${of === 1 ? "its operation" : `all ${of} operations`} succeeded.`
      : `The plan you approved for the agent ${input.agent} did NOT run as approved: ${opName(verdict.first, of)} failed (${cardText(verdict.reason)}).`,
    `Approved by ${input.decidedBy}; finished at ${input.finishedAt}.`,
    "",
  ];
  for (const r of results) {
    lines.push(`${r.number}. ${cardText(r.summary)}`);
    lines.push(`   tool: ${cardText(r.tool)}`);
    lines.push(`   result: ${resultLine(r)}`);
    lines.push("");
  }
  lines.push(
    `code: ${formatCode(input.code)}`,
    "",
    !input.continues
      ? "The agent is gone, so nobody continues the conversation: tell the requester yourself. The operator has been alerted."
      : verdict.status === "applied"
        ? "The agent continues the conversation with these results."
        : "The agent continues the conversation with these results and is told not to say that what failed was done. The operator has been alerted.",
  );
  return lines.join("\n");
}

/**
 * The notice as an outbound request: to the approver who decided only, chosen by the engine (like the card, so the
 * agent's outbound rules do not stand between an approver and the truth about their approval), once per plan.
 */
export function outcomeMailRequest(input: {
  runId: string;
  agent: string;
  correlationId: string;
  to: string;
  code: string;
  finishedAt: string;
  verdict: PlanVerdict;
  results: readonly OpResult[];
  continues: boolean;
}): OutboundRequest {
  return {
    requestId: `plan-outcome-${input.runId}`,
    agent: input.agent,
    mode: "new",
    to: [input.to],
    cc: [],
    bcc: [],
    subject: outcomeSubject(input.verdict, input.results.length, input.code),
    body: renderOutcome({ ...input, decidedBy: input.to }),
    attachmentIds: [],
    correlationId: input.correlationId,
    runId: input.runId,
    kind: "agent",
    recipientsFrom: "approvers",
  };
}
