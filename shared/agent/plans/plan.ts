import { createHash, randomInt } from "node:crypto";
import { CODE_ALPHABET, CODE_LENGTH } from "../../mail/index.ts";
import type { PlanOperation } from "../../ports/index.ts";

/** JSON with object keys sorted at every level: the same plan always hashes the same (RFC 8785 in spirit). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** The hash a confirm code is bound to: the agent, the run and every operation, in order. */
export function planHash(plan: { agent: string; runId: string; ops: readonly PlanOperation[] }): string {
  return createHash("sha256")
    .update(canonicalJson({ agent: plan.agent, runId: plan.runId, ops: plan.ops }))
    .digest("hex");
}

/**
 * A fresh, unguessable confirm code (~49 bits). It is random rather than derived from the plan, so knowing the
 * plan does not let anyone forge the code; the binding to the plan is the stored hash, re-checked at apply.
 */
export function newConfirmCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}
