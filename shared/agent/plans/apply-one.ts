import type { AdminSnapshot, AgentItem, ToolkitItem } from "../../admin/index.ts";
import type { StoredOperation } from "../../ports/index.ts";
import type { ToolContext, ToolRegistry } from "../../tool-framework/index.ts";
import { type ToolResult, toolFailure } from "../../tool-framework/index.ts";
import type { CallCheck } from "../loop/call-check.ts";
import type { ToolCallRequest, ToolResultCache } from "../loop/dispatch.ts";
import { checkToolCall } from "../loop/toolkits.ts";
import type { BudgetGate, LoadedRun } from "../ports.ts";

/** What running one approved operation needs: the gates of the loop, the tool context, a deadline. */
export interface ApplyOneDeps {
  readonly registry: ToolRegistry;
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
  /** One operation's deadline (default APPLY_OP_TIMEOUT_MS). */
  readonly opTimeoutMs?: number;
}

/**
 * How long one approved operation may take. A tool that never answers would otherwise hold the plan in `applying`
 * until agent-step's own timeout killed it, and the approver, the requester and the operator would hear nothing
 * (G19). Ten of these fit in agent-step's 10-minute timeout.
 */
export const APPLY_OP_TIMEOUT_MS = 55_000;

/**
 * One approved operation (G14), every gate re-run at apply time, with its idempotency key. A tool that returns a
 * failure, throws or does not answer in time is a failed operation, never a success.
 */
export async function applyOne(
  op: StoredOperation,
  index: number,
  ctx: { run: LoadedRun; agent: AgentItem; admin: AdminSnapshot; deps: ApplyOneDeps },
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
  const timeoutMs = deps.opTimeoutMs ?? APPLY_OP_TIMEOUT_MS;
  let result: ToolResult;
  try {
    result = await withDeadline(
      gate.tool.use(deps.makeToolContext(run, agent, call, key, grantedBy), parsed.data),
      timeoutMs,
      () =>
        toolFailure(
          "tool-timeout",
          // The call is not cancelled: it may still take effect, so the words say "unknown", never "not done".
          `${op.tool} did not answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}; whether it took effect is unknown`,
        ),
    );
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

/** `work`, or `late()` once `ms` have passed; the timer never outlives the race. */
async function withDeadline<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
