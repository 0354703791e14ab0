import type { ActivityEntry, ThreadActivityLog } from "../../shared/agent/ports.ts";
import { type MemoryState, memoryState } from "./state.ts";

const pk = (agent: string, threadId: string) => `activity#${agent}#${threadId}`;

/**
 * What an agent did in a thread (ThreadActivity) in a memory `state` table, item for item: one per call, written
 * once; the newest 30 shown, oldest first. Run against the real one by test/contracts/thread-activity.contract.ts.
 */
export function memoryThreadActivity(state: MemoryState = memoryState()): ThreadActivityLog {
  return {
    async record(agent, threadId, callId, entry) {
      await state.putIfAbsent(pk(agent, threadId), `${entry.runId}#${callId}`, { ...entry });
    },
    async list(agent, threadId): Promise<ActivityEntry[]> {
      return [...state.items.values()]
        .filter((i) => i.pk === pk(agent, threadId))
        .map((i) => ({
          at: String(i.at),
          runId: String(i.runId),
          tool: String(i.tool),
          ok: i.ok === true,
          ...(i.reason ? { reason: String(i.reason) } : {}),
        }))
        .sort((x, y) => x.at.localeCompare(y.at))
        .slice(-30);
    },
  };
}
