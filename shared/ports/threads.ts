import type { Fail, Ok } from "../result.ts";
// Ports: the record shapes and store interfaces the cores (agent, intake, outbound) are written against.
// shared/store implements them over DynamoDB and S3; test/fakes implements them in memory.

export interface ThreadHeaders {
  readonly headerMessageId: string;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  readonly subject: string;
}

export type ThreadResolution = { readonly threadId: string; readonly isNew: boolean };

export type RecordIdResult = Ok | Fail<"duplicate", { readonly threadId: string | null }>;

/**
 * A mail this agent sent, as the Message-ID index remembers it: who it went to (routing keys), its subject and
 * when. Recorded under the Message-ID recipients see (SES's own, which nobody outside the thread can guess), so a
 * reply whose signer left In-Reply-To/References unsigned can still be matched to it (G2, docs/gate.md).
 */
export interface SentMail {
  readonly to: readonly string[];
  readonly subject: string;
  readonly sentAt: string;
}

/** A sent mail found by its Message-ID (without angle brackets), with the thread it belongs to. */
export interface SentMailRef extends SentMail {
  readonly messageId: string;
  readonly threadId: string;
}

/** Sent mail of an agent among `messageIds` (at most 20 are looked up), in the order asked. */
export type SentMailLookup = (
  agent: string,
  messageIds: readonly string[],
) => Promise<readonly SentMailRef[]>;

/** One thread of an agent's mailbox, as its summary item keeps it. */
export interface ThreadRecord {
  readonly agent: string;
  readonly threadId: string;
  /** Subject of the first message; display only, never used to match (an attacker writes subjects). */
  readonly subject: string;
  readonly createdAt: string;
  readonly lastMessageAt: string;
  readonly messageCount: number;
}

/** A thread's summary, as the console shows it (shared/store/thread-repo.ts). */
export interface ThreadReader {
  /** null when the agent has no such thread. */
  get(agent: string, threadId: string): Promise<ThreadRecord | null>;
}

/** Threads and the Message-ID index that places a mail in one (shared/store/thread-repo.ts). */
export interface ThreadIndex {
  resolveThread(agent: string, h: ThreadHeaders): Promise<ThreadResolution>;
  /** `sent`: the mail is the agent's own, recorded for `sentMail` (outbound only). */
  recordMessageId(
    agent: string,
    headerMessageId: string,
    threadId: string,
    sent?: SentMail,
  ): Promise<RecordIdResult>;
  /** The agent's own sent mail among these Message-IDs (see SentMail). */
  sentMail: SentMailLookup;
  touch(agent: string, threadId: string, t: { lastMessageAt: string; subject: string }): Promise<void>;
  /** A fresh thread id (a mail that may not join the thread its headers name starts one). */
  newThreadId(): string;
  /**
   * Record who took part in a thread, by routing key: the proven sender and the signed To/Cc of a mail in it, and
   * everyone the agent wrote to in it. Only these may join the thread later (threading headers are
   * never trusted to decide who sees what). Idempotent; at most MAX_PARTICIPANTS_PER_MAIL keys per call.
   */
  addParticipants(agent: string, threadId: string, keys: readonly string[]): Promise<void>;
  /** Did `key` (a routing key) take part in the thread? Unknown threads have no participants. */
  isParticipant(agent: string, threadId: string, key: string): Promise<boolean>;
}

/**
 * Participants one mail may add. A mail's signed To/Cc can name hundreds of addresses; each becomes a member of
 * the thread, and the set lives on one DynamoDB item (400 KB). Beyond this cap the extra addresses are simply not
 * members: they start their own thread if they write (fail closed).
 */
export const MAX_PARTICIPANTS_PER_MAIL = 100;
