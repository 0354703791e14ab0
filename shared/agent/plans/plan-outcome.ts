// What an approved plan actually did (G14, G19). An approval is a decision, not an outcome: a plan is `applied` only
// when every operation succeeded, and every word the approver, the model and the requester read about it is
// composed from these results, never from a fixed success text.

import { capDetail, type PlanOpResult } from "../../ports/index.ts";
import type { ToolResult } from "../../tool-framework/index.ts";

/** One operation as it went, numbered as the card numbers them (from 1). */
export interface OpResult {
  readonly number: number;
  readonly tool: string;
  readonly summary: string;
  /** What the tool (or a gate at apply) returned; null when it never ran because an earlier operation failed. */
  readonly result: ToolResult | null;
  /** When it finished (ISO); absent when it never ran. */
  readonly at?: string;
}

export type PlanVerdict =
  | { readonly status: "applied" }
  /** `reason`: the first failed operation's reason code; `first`: that operation. */
  | { readonly status: "failed"; readonly reason: string; readonly first: OpResult };

/** `applied` only when every operation ran and succeeded; anything else is `failed`, with the first failure. */
export function judgePlan(results: readonly OpResult[]): PlanVerdict {
  const first = results.find((r) => r.result === null || !r.result.ok);
  if (first === undefined) return { status: "applied" };
  return {
    status: "failed",
    reason: first.result && !first.result.ok ? first.result.reason : "not-run",
    first,
  };
}

/** The results as the plan item keeps them (and the console and CLI show them). */
export function storedResults(results: readonly OpResult[]): PlanOpResult[] {
  return results.map((r): PlanOpResult => {
    const base = { number: r.number, tool: r.tool };
    if (r.result === null) return { ...base, status: "not-run" };
    if (r.result.ok) return { ...base, status: "ok", ...(r.at ? { at: r.at } : {}) };
    const detail = capDetail(String(r.result.detail ?? ""));
    return {
      ...base,
      status: "failed",
      reason: r.result.reason,
      ...(detail ? { detail } : {}),
      ...(r.at ? { at: r.at } : {}),
    };
  });
}

/** `operation 2 of 3 (issue_refund)`: how every message about a plan names an operation. */
export const opName = (r: Pick<OpResult, "number" | "tool">, of: number): string =>
  `operation ${r.number} of ${of} (${r.tool})`;

/**
 * The engine's first line about an approved plan, for the model's continuation: what ran and what failed. The
 * model is told plainly not to claim what did not happen.
 */
export function outcomeSummary(
  verdict: PlanVerdict,
  results: readonly OpResult[],
  decidedBy: string,
): string {
  const of = results.length;
  if (verdict.status === "applied")
    return `Plan outcome: applied. Approved by ${decidedBy}; ${of === 1 ? "the operation" : `all ${of} operations`} ran and succeeded.`;
  const ran = results.filter((r) => r.result?.ok === true).map((r) => opName(r, of));
  const notRun = results.filter((r) => r.result === null).length;
  return [
    `Plan outcome: failed (${verdict.reason}). Approved by ${decidedBy}, but ${opName(verdict.first, of)} failed: ${verdict.reason}.`,
    ran.length > 0 ? ` Succeeded before it: ${ran.join(", ")}.` : "",
    notRun > 0 ? ` ${notRun} later operation${notRun === 1 ? " was" : "s were"} not run.` : "",
    " Tell the sender what happened; do not say that what failed was done.",
  ].join("");
}
