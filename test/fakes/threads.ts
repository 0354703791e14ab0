import { randomUUID } from "node:crypto";
import {
  MAX_PARTICIPANTS_PER_MAIL,
  type ThreadIndex,
  type ThreadReader,
  type ThreadRecord,
} from "../../shared/ports/index.ts";
import {
  MAX_SENT_LOOKUP,
  msgIdPk,
  normalizeMessageId,
  sentAttributes,
  sentRef,
} from "../../shared/store/thread-repo.ts";
import { type MemoryState, memoryState } from "./state.ts";
import { stored } from "./stored.ts";

/** Threads as verify stores accepted mail into them, and as the console reads one back (ThreadRepo). */
export type ThreadPort = ThreadIndex & ThreadReader;

export interface MemoryThreads extends ThreadPort {
  readonly threads: Map<string, ThreadRecord>;
  /** `<agent>|<threadId>` → routing keys of the thread's participants. */
  readonly participants: Map<string, Set<string>>;
  /** The `state` table holding the per-agent Message-ID index (`msgid#<agent>`). */
  readonly state: MemoryState;
}

/**
 * Threads per agent over maps: a message joins a thread only through a Message-ID the same agent has seen, newest
 * reference first; a thread's summary keeps its first subject and its latest time. Run against the real one by
 * test/contracts/threads.contract.ts.
 */
export function memoryThreads(opts: { state?: MemoryState; newId?: () => string } = {}): MemoryThreads {
  const state = opts.state ?? memoryState();
  const newId = opts.newId ?? randomUUID;
  const threads = new Map<string, ThreadRecord>();
  const participants = new Map<string, Set<string>>();
  const known = (agent: string, id: string) =>
    state.items.get(`${msgIdPk(agent)}|${id}`)?.threadId as string | undefined;
  return {
    threads,
    participants,
    state,
    newThreadId: () => newId(),
    async addParticipants(agent, threadId, keys) {
      const unique = [...new Set(keys.filter((k) => k !== ""))].slice(0, MAX_PARTICIPANTS_PER_MAIL);
      if (unique.length === 0) return;
      const set = participants.get(`${agent}|${threadId}`) ?? new Set<string>();
      for (const k of unique) set.add(k);
      participants.set(`${agent}|${threadId}`, set);
    },
    async isParticipant(agent, threadId, key) {
      return participants.get(`${agent}|${threadId}`)?.has(key) ?? false;
    },
    async resolveThread(agent, h) {
      const candidates = [h.headerMessageId, h.inReplyTo ?? "", ...[...h.references].reverse()]
        .map(normalizeMessageId)
        .filter((id, i, all) => id !== "" && all.indexOf(id) === i)
        .slice(0, 50);
      for (const id of candidates) {
        const threadId = known(agent, id);
        if (threadId) return { threadId, isNew: false };
      }
      return { threadId: newId(), isNew: true };
    },
    async recordMessageId(agent, headerMessageId, threadId, sent) {
      const sk = normalizeMessageId(headerMessageId);
      if (sk === "") throw new Error("recordMessageId: empty Message-ID");
      const current = known(agent, sk);
      if (current !== undefined) return { ok: false, reason: "duplicate", threadId: current };
      state.items.set(`${msgIdPk(agent)}|${sk}`, {
        pk: msgIdPk(agent),
        sk,
        threadId,
        ...sentAttributes(sent),
      });
      return { ok: true };
    },
    async sentMail(agent, messageIds) {
      const ids = [...new Set(messageIds.map(normalizeMessageId).filter((id) => id !== ""))].slice(
        0,
        MAX_SENT_LOOKUP,
      );
      return ids.flatMap((id) => sentRef(id, state.items.get(`${msgIdPk(agent)}|${id}`)) ?? []);
    },
    async touch(agent, threadId, t) {
      const current = threads.get(`${agent}|${threadId}`);
      const later =
        current === undefined ||
        current.lastMessageAt === undefined ||
        current.lastMessageAt < t.lastMessageAt;
      threads.set(`${agent}|${threadId}`, {
        agent,
        threadId,
        subject: current?.subject ?? t.subject,
        createdAt: current?.createdAt ?? t.lastMessageAt,
        lastMessageAt: later ? t.lastMessageAt : current.lastMessageAt,
        messageCount: (current?.messageCount ?? 0) + 1,
      });
    },
    async get(agent, threadId) {
      const t = threads.get(`${agent}|${threadId}`);
      return t ? stored(t) : null;
    },
  };
}
