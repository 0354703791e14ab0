import { createHash, randomInt } from "node:crypto";

/** One proposed operation: exactly the tool and the validated arguments the model asked for. */
export interface PlanOperation {
  readonly callId: string;
  readonly tool: string;
  readonly input: unknown;
  readonly summary: string;
}

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

/** Unambiguous upper-case letters and digits (no 0/O, 1/I/L). */
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const CODE_LENGTH = 10;

/**
 * A fresh, unguessable confirm code (~49 bits). It is random rather than derived from the plan, so knowing the
 * plan does not let anyone forge the code; the binding to the plan is the stored hash, re-checked at apply.
 */
export function newConfirmCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

export type Confirmation = { readonly action: "approve" | "cancel"; readonly code: string };

const CONFIRM_LINE = new RegExp(`^\\s*(APPROVE|CANCEL)\\s+([${CODE_ALPHABET}]{${CODE_LENGTH}})\\s*$`);

/**
 * Find `APPROVE <code>` or `CANCEL <code>` on a line of its own in the approver's own text. Quoted lines (`>`)
 * are skipped, so quoting the card back does not confirm it; two different instructions are ambiguous: none.
 */
export function parseConfirmation(text: string | null): Confirmation | null {
  if (!text) return null;
  const found = new Map<string, Confirmation>();
  for (const line of text.split(/\r\n|[\n\r\u2028\u2029]/)) {
    if (line.trimStart().startsWith(">")) continue;
    const m = CONFIRM_LINE.exec(line);
    if (m) {
      const c: Confirmation = { action: m[1] === "APPROVE" ? "approve" : "cancel", code: m[2] as string };
      found.set(`${c.action}:${c.code}`, c);
    }
  }
  return found.size === 1 ? ([...found.values()][0] as Confirmation) : null;
}

/** The confirm card's text: engine-written frame, the summary and the real arguments of every operation. */
export function renderCard(input: {
  agent: string;
  code: string;
  ops: readonly PlanOperation[];
  expiresAt: string;
}): string {
  const lines = [
    `The agent ${input.agent} proposes the following operation${input.ops.length === 1 ? "" : "s"}. Nothing has run yet.`,
    "",
  ];
  input.ops.forEach((op, i) => {
    lines.push(`${i + 1}. ${op.summary}`);
    lines.push(`   tool: ${op.tool}`);
    lines.push(`   arguments: ${canonicalJson(op.input)}`);
    lines.push("");
  });
  lines.push(`To run exactly these operations, reply with this line on its own:`);
  lines.push("");
  lines.push(`APPROVE ${input.code}`);
  lines.push("");
  lines.push(`To discard them, reply with: CANCEL ${input.code}`);
  lines.push(`The code expires at ${input.expiresAt}.`);
  return lines.join("\n");
}
