import type { AdminSnapshot } from "../../admin/index.ts";
import { perReceive } from "../../payloads/index.ts";
import type { Stores } from "../../store/index.ts";

/** The reads one delivery keeps: the admin snapshot and the message records it asked for. */
export interface DeliveryReads {
  admin(): Promise<AdminSnapshot>;
  message: Stores["messages"]["get"];
  /** A new delivery starts: both are read afresh from here on. */
  beginReceive(): void;
}

/**
 * Several rules of one delivery read the admin snapshot (a version read each time) and the run's message: each is
 * read once per delivery and kept for it; beginReceive drops them, so the next delivery reads fresh.
 */
export function deliveryReads(stores: Pick<Stores, "admin" | "messages">): DeliveryReads {
  const admin = perReceive(() => stores.admin.snapshot());
  const messages = new Map<string, ReturnType<Stores["messages"]["get"]>>();
  return {
    admin: () => admin.get(),
    message(agent, id) {
      const key = `${agent}\u0000${id}`;
      let m = messages.get(key);
      if (!m) {
        m = stores.messages.get(agent, id);
        messages.set(key, m);
        m.catch(() => messages.delete(key));
      }
      return m;
    },
    beginReceive() {
      admin.reset();
      messages.clear();
    },
  };
}
