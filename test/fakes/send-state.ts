import type { SendRecord, SendStateStore } from "../../shared/outbound/ports.ts";
import { stored } from "./stored.ts";

/**
 * The outbound send state machine (SendStateStore) over a map: claimed once, moved only from a listed state. Run
 * against the real one (sendStateStore over StateRepo) by test/contracts/send-state.contract.ts.
 */
export function memoryStateStore(): SendStateStore & { items: Map<string, SendRecord> } {
  const items = new Map<string, SendRecord>();
  return {
    items,
    async get(id) {
      const r = items.get(id);
      return r ? stored(r) : null;
    },
    async claim(id, at) {
      if (items.has(id)) return false;
      items.set(id, { requestId: id, state: "claimed", claimedAt: at, updatedAt: at });
      return true;
    },
    async transition(id, from, to, fields, at) {
      const cur = items.get(id);
      if (!cur || !from.includes(cur.state)) return false;
      items.set(id, stored({ ...cur, ...fields, state: to, updatedAt: at }));
      return true;
    },
  };
}
