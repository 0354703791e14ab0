import type { MessagePutResult, MessageRecord, MessageStore } from "../../shared/ports/messages.ts";
import { stored } from "./stored.ts";

/** The mailbox table as verify, the step loop and the mailbox tools use it (MessageRepo). */
export type MessagePort = MessageStore;

export interface MemoryMessages extends MessagePort {
  /** By `agent|id`. Extra attributes (verify's `fromName`) are kept, as DynamoDB keeps them. */
  readonly records: Map<string, MessageRecord>;
}

const byId = (a: MessageRecord, b: MessageRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Messages over a map, keyed like the table (agent, id): a second put of an id is a duplicate; listings read one
 * agent's partition in id order (ids are time-ordered). Run against the real one by
 * test/contracts/messages.contract.ts.
 */
export function memoryMessages(): MemoryMessages {
  const records = new Map<string, MessageRecord>();
  const partition = (agent: string) => [...records.values()].filter((m) => m.agent === agent).sort(byId);
  return {
    records,
    async put(msg): Promise<MessagePutResult> {
      if (records.has(`${msg.agent}|${msg.id}`)) return { ok: false, reason: "duplicate" };
      records.set(`${msg.agent}|${msg.id}`, stored(msg));
      return { ok: true };
    },
    async get(agent, id) {
      const m = records.get(`${agent}|${id}`);
      return m ? stored(m) : null;
    },
    async listByThread(agent, threadId, opts = {}) {
      const thread = partition(agent).filter((m) => m.threadId === threadId);
      return stored(opts.newest === undefined ? thread : thread.slice(-opts.newest));
    },
    async listByAgent(agent, opts = {}) {
      return stored(
        partition(agent)
          .reverse()
          .slice(0, opts.limit ?? Number.POSITIVE_INFINITY),
      );
    },
  };
}
