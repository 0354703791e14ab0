import type { Fail } from "../result.ts";
// Ports: the record shapes and store interfaces the cores (agent, intake, outbound) are written against.
// shared/store implements them over DynamoDB and S3; test/fakes implements them in memory.

export type RunKind = "reply" | "scheduled";

export type RunState = "running" | "completed" | "turn-limit" | "budget-exceeded" | "failed";

export type FinalRunState = Exclude<RunState, "running">;

export interface RunRecord {
  readonly runId: string;
  readonly agent: string;
  readonly kind: RunKind;
  /** Mailbox id of the inbound message that started a reply run; null for scheduled runs. */
  readonly messageId: string | null;
  readonly responsibilityId: string | null;
  /** Proven sender's routing key (G17); null for scheduled runs. */
  readonly sender: string | null;
  readonly threadId: string | null;
  readonly state: RunState;
  /** The round the next agent-step works on (starts at 1). */
  readonly round: number;
  /** Highest round claimed by an agent-step (0 = none yet). */
  readonly claimedRound: number;
  readonly maxRounds: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly correlationId: string;
  /** S3 key of the transcript (`transcripts/<runId>.json`). */
  readonly transcriptKey: string;
  /**
   * Whether the transcript at `transcriptKey` has been written: agent-step reads it only then, so it
   * never needs S3 to say "no such key" (which takes s3:ListBucket). `false` at create; absent on older runs.
   */
  readonly transcriptSaved?: boolean;
  readonly finishReason: string | null;
  /**
   * The latest failure that belongs to this run (G19): a failed run, or mail it caused that was never sent (its
   * reply, its confirm card, its notice). Absent when nothing failed. `failureCount` counts them all.
   */
  readonly failure?: RunFailureMark;
  readonly failureCount?: number;
}

/** What a run's row says about its latest failure (shared/ports/failures.ts has the classes). */
export interface RunFailureMark {
  readonly class: string;
  readonly reason: string;
  readonly at: string;
  readonly requestId?: string;
}

export type NewRun = Omit<
  RunRecord,
  | "state"
  | "round"
  | "claimedRound"
  | "updatedAt"
  | "finishReason"
  | "createdAt"
  | "transcriptSaved"
  | "failure"
  | "failureCount"
> & { readonly createdAt?: string };

export type CreateRunResult = { readonly ok: true; readonly run: RunRecord } | Fail<"duplicate">;

/** Where intake starts a run (shared/store/run-repo.ts). */
export interface RunCreator {
  /** Conditional on the run id being new: a redelivery finds `duplicate`. */
  create(input: NewRun): Promise<CreateRunResult>;
}

/** A run as the console and the CLI read it back (shared/store/run-repo.ts). */
export interface RunReader {
  /** null when no run has the id. */
  get(runId: string): Promise<RunRecord | null>;
}

/** One event of a run's trace, as it is appended. */
export interface RunEvent {
  readonly type: string;
  readonly at: string;
  readonly round: number;
  readonly data: Record<string, unknown>;
}

/** An event as the trace stores it: numbered within its run, in time order. */
export interface StoredRunEvent extends RunEvent {
  readonly runId: string;
  readonly seq: number;
}

/** A run's trace read back (shared/store/run-event-repo.ts). */
export interface RunEventReader {
  /** In order of `seq`. */
  list(runId: string): Promise<StoredRunEvent[]>;
}
