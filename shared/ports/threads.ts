// Ports: the record shapes and store interfaces the cores (agent, intake, outbound) are written against.
// shared/store implements them over DynamoDB and S3; test/fakes implements them in memory.

export interface ThreadHeaders {
  readonly headerMessageId: string;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  readonly subject: string;
}

export type ThreadResolution = { readonly threadId: string; readonly isNew: boolean };

export type RecordIdResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: "duplicate"; readonly threadId: string | null };

/** Threads and the Message-ID index that places a mail in one (shared/store/thread-repo.ts). */
export interface ThreadIndex {
  resolveThread(agent: string, h: ThreadHeaders): Promise<ThreadResolution>;
  recordMessageId(agent: string, headerMessageId: string, threadId: string): Promise<RecordIdResult>;
  touch(agent: string, threadId: string, t: { lastMessageAt: string; subject: string }): Promise<void>;
}
