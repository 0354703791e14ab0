import {
  type PlanBook,
  type PlanRecord,
  planFromItem,
  type StoredOperation,
} from "../../shared/ports/plans.ts";
import { type MemoryState, memoryState } from "./state.ts";
import { stored } from "./stored.ts";

const PLAN_TTL_SECONDS = 30 * 24 * 3600;
const pk = (runId: string) => `plan#${runId}`;

export interface MemoryPlanStore extends PlanBook {
  /** The `state` table the plans live in (plans, code index), shared with whatever else uses it. */
  readonly state: MemoryState;
  /** `add run-1 c1 → added`, `seal run-1 → true`, `move run-1 pending→applying → true`, in order. */
  readonly calls: string[];
}

/**
 * The plans (PlanStore) in a memory `state` table, item for item: one per run (`plan#<runId>`), a code index
 * item per sealed plan, every state change conditional on the current state. Run against the real one by
 * test/contracts/plan-store.contract.ts.
 */
export function memoryPlanStore(state: MemoryState = memoryState()): MemoryPlanStore {
  const calls: string[] = [];
  const item = (runId: string) => state.items.get(`${pk(runId)}|plan`);
  const get = async (runId: string): Promise<PlanRecord | null> => {
    const i = item(runId);
    if (!i) return null;
    return stored(planFromItem(runId, i));
  };
  const log = <T>(line: string, result: T): T => {
    calls.push(`${line} → ${String(result)}`);
    return result;
  };
  return {
    state,
    calls,
    get,
    async add(runId, agent, op) {
      const i = item(runId);
      const opIds = (i?.opIds ?? []) as string[];
      if ((i && i.state !== "open") || opIds.includes(op.callId)) {
        const dup = ((i?.ops ?? []) as StoredOperation[]).some((o) => o.callId === op.callId);
        return log(`add ${runId} ${op.callId}`, dup ? "duplicate" : "closed");
      }
      state.items.set(
        `${pk(runId)}|plan`,
        stored({
          pk: pk(runId),
          sk: "plan",
          ...i,
          ops: [...((i?.ops ?? []) as StoredOperation[]), op],
          opIds: [...opIds, op.callId],
          agent,
          state: i?.state ?? "open",
          planState: i?.planState ?? "open",
          planAt: i?.planAt ?? new Date().toISOString(),
          expiresAt: i?.expiresAt ?? Math.floor(Date.now() / 1000) + PLAN_TTL_SECONDS,
        }),
      );
      return log(`add ${runId} ${op.callId}`, "added");
    },
    async seal(runId, agent, sealed) {
      const moved = await state.transition(pk(runId), "plan", "open", "pending", {
        ...sealed,
        planState: "pending",
      });
      if (!moved.ok) return log(`seal ${runId}`, false);
      await state.putIfAbsent(`plancode#${sealed.code}`, "plan", { runId, agent }, PLAN_TTL_SECONDS);
      return log(`seal ${runId}`, true);
    },
    async runForCode(code) {
      const i = await state.get(`plancode#${code}`, "plan");
      return i ? { runId: String(i.runId), agent: String(i.agent) } : null;
    },
    async move(runId, from, to, attrs = {}) {
      const r = await state.transition(pk(runId), "plan", from, to, { ...attrs, planState: to });
      return log(`move ${runId} ${from}→${to}`, r.ok);
    },
  };
}
