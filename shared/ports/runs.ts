import type { Fail, Ok } from "../result.ts";
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

/** A new run as its creator knows it; the table derives the rest (its transcript key from its id). */
export type NewRun = Omit<
  RunRecord,
  | "state"
  | "round"
  | "claimedRound"
  | "updatedAt"
  | "finishReason"
  | "createdAt"
  | "transcriptKey"
  | "transcriptSaved"
  | "failure"
  | "failureCount"
> & { readonly createdAt?: string };

export type CreateRunResult = Ok<{ readonly run: RunRecord }> | Fail<"duplicate">;
export type FinishRunResult = Ok | Fail<"not-running" | "missing">;

/**
 * The runs table (shared/store/run-repo.ts; test/fakes/run-table.ts in memory): the one port. Each user takes the
 * `Pick` of it that it calls, so a method changes in one place.
 */
export interface RunTable {
  /** Conditional on the run id being new: a redelivery finds `duplicate`. */
  create(input: NewRun): Promise<CreateRunResult>;
  /** null when no run has the id. */
  get(runId: string): Promise<RunRecord | null>;
  /** End the run in a final state, once: a second finish (a redelivery) gets `not-running`. */
  finish(runId: string, state: FinalRunState, reason: string): Promise<FinishRunResult>;
  /** Record that `round` started (display only; the round ledger decides); never moves back. */
  noteRound(runId: string, round: number): Promise<void>;
  /** Record that the run's transcript is written (RunRecord.transcriptSaved); a missing run is no error. */
  noteTranscript(runId: string): Promise<void>;
  /** Mark the run's row with a failure that belongs to it (G19); a missing run is no error. */
  markFailure(runId: string, mark: RunFailureMark): Promise<void>;
}

/** Where intake starts a run. */
export type RunCreator = Pick<RunTable, "create">;

/** A run as the console and the CLI read it back. */
export type RunReader = Pick<RunTable, "get">;

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
