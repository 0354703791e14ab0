import type { Fail, Ok } from "../result.ts";
import type { RunEndReason, RunState } from "./ports.ts";

/**
 * The records the agent's rules read and write below the step loop's own ports (ports.ts): runs as the run table
 * keeps them, the trace, the thread's activity. shared/agent/wiring.ts implements them over the store.
 */

/** A run as the run table keeps it: its trigger by id (the message, or the responsibility). */
export interface StoredRun {
  readonly runId: string;
  readonly agent: string;
  readonly kind: "reply" | "scheduled";
  readonly state: RunState;
  readonly messageId: string | null;
  readonly responsibilityId: string | null;
  /** Routing key of the proven sender of a reply run (G17). */
  readonly sender: string | null;
  readonly threadId: string | null;
  readonly maxRounds: number;
  readonly correlationId: string;
  readonly createdAt: string;
  /**
   * Whether the run's transcript has been written: the step reads a transcript only when its run says
   * so, and never asks S3 whether one exists. `false` on every run created since; absent on a run created before.
   */
  readonly transcriptSaved?: boolean;
}

export type NewStoredRun = Omit<StoredRun, "state" | "createdAt" | "transcriptSaved">;

export interface RunTable {
  get(runId: string): Promise<StoredRun | null>;
  /** Conditional: `ok: false` when the run already exists. */
  create(run: NewStoredRun): Promise<{ readonly ok: boolean }>;
  finish(runId: string, state: Exclude<RunState, "running">, reason: RunEndReason): Promise<void>;
  /** Record that `round` started (display only; the round ledger decides). */
  noteRound(runId: string, round: number): Promise<void>;
  /** Record that the run's transcript is written (StoredRun.transcriptSaved); a missing run is no error. */
  noteTranscript(runId: string): Promise<void>;
}

/** The accepted inbound message a reply run answers, as verify stored it. */
export interface StoredMessage {
  readonly id: string;
  readonly threadId: string;
  readonly subject: string | null;
  readonly headerMessageId: string | null;
  /** The DKIM-proven From address. */
  readonly from: string;
  /** The From display name as written; shown only through the fence's rules. */
  readonly fromName?: string;
}

/** One trace event as stored. */
export interface TraceEvent {
  readonly type: string;
  readonly round: number;
  readonly at: string;
  readonly data: Record<string, unknown>;
}

/** Why the trace refused an event (the store's run-event repository): an event over 32 KB. */
export type RunEventRefusal = "too-large";

/** The run's trace, append-only. An append can be refused (an event too large to store). */
export interface RunEventLog {
  append(runId: string, event: TraceEvent): Promise<Ok | Fail<RunEventRefusal>>;
}

/** One tool call of an agent in a thread, as a later run in the thread is shown it. */
export interface ActivityEntry {
  readonly at: string;
  readonly runId: string;
  readonly tool: string;
  readonly ok: boolean;
  readonly reason?: string;
}

export interface ThreadActivityLog {
  /** Once per call: a re-recorded call is written once. */
  record(agent: string, threadId: string, callId: string, entry: ActivityEntry): Promise<void>;
  list(agent: string, threadId: string): Promise<readonly ActivityEntry[]>;
}
