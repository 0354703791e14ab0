import type { AdminSnapshot, AgentItem, ToolkitItem } from "../admin/index.ts";
import type { DeploymentConfig } from "../config/index.ts";
import type { Logger } from "../logger.ts";
import type { Message, ModelFailureReason, ModelProvider, Usage } from "../model/index.ts";
import type { StepPayload } from "../payloads/index.ts";
import type { MessageRecord, RunEvent, RunRecord, RunState, RunTable, WebhookSink } from "../ports/index.ts";
import type { Fail, Ok } from "../result.ts";
import type {
  RunTrigger,
  Tool,
  ToolContext,
  ToolRegistry,
  ToolResult,
  VerifiedSender,
} from "../tool-framework/index.ts";
import type { CallCheck } from "./loop/call-check.ts";
import type { ToolCallRequest, ToolResultCache } from "./loop/dispatch.ts";

/**
 * Why a run ended, as the run table and the `run-finished` event record it; operators search for these. The step
 * loop's own codes, a spent budget, the model's failure, and the trigger or agent found missing.
 */
export type RunEndReason =
  | "model-stopped"
  /** The round's only call was a successful reply: the answer is the run's last word (agent `continueAfterReply`). */
  | "replied"
  | `reached ${number} rounds`
  | "model-unknown"
  | "agent-missing"
  | "responsibility-missing"
  | "message-missing"
  | "step-retries-exhausted"
  | BudgetReason
  | ModelFailureReason;

/** A run as the step loop needs it: the run record (shared/ports/runs.ts) with its trigger and sender loaded. */
export interface LoadedRun {
  readonly runId: string;
  readonly agent: string;
  readonly kind: "reply" | "scheduled";
  readonly trigger: RunTrigger;
  readonly sender: VerifiedSender | null;
  readonly state: RunState;
  readonly correlationId: string;
  readonly createdAt: string;
  /** RunRecord.transcriptSaved: whether a transcript may be read (absent: a run created before the flag). */
  readonly transcriptSaved?: boolean;
  /** How an ended run ended (RunRecord.finishReason) and the round it reached: its end event is emitted again. */
  readonly finishReason?: string | null;
  readonly round?: number;
}

/** What the transcript in S3 holds: the whole conversation so far, and which round wrote its tail. */
export interface Transcript {
  readonly system: string;
  readonly messages: readonly Message[];
  /** The last round whose assistant turn is in `messages`. */
  readonly lastRound: number;
  /**
   * Accepted untrusted text of round 1, normalised as the fence shows it (for the quote check, G15): only what was
   * shown, so a cut body's unshown rest is not here; read_email's later slices are added from the
   * messages by `acceptedText` (quote-check.ts).
   */
  readonly untrustedText: string;
}

export type RoundClaim =
  /**
   * `first`: no delivery claimed this round before (so none ran its tools: nothing is cached for it); false when
   * this delivery took over an expired or released lease.
   */
  | { readonly status: "claimed"; readonly first: boolean }
  | { readonly status: "busy" }
  | { readonly status: "done" };

/** Per-round progress, in single-item conditional writes (no transactions in dynalite). */
export interface RoundLedger {
  /** First claim, or take-over of an expired lease after a crash; `busy` while another worker holds it. */
  claim(runId: string, round: number, leaseMs: number): Promise<RoundClaim>;
  /** The round is finished: later deliveries of it are skipped. (Progress inside a round is the transcript's.) */
  markDone(runId: string, round: number): Promise<void>;
  /** Give up the lease of an unfinished round (a retryable failure), so the redelivery can take it at once. */
  release(runId: string, round: number): Promise<void>;
}

/** The runs table as the step loop writes it: the run's end, its displayed round, its saved transcript. */
export type StepRuns = Pick<RunTable, "finish" | "noteRound" | "noteTranscript">;

/**
 * Transcripts by run. `load` is called only for a run whose item says one was saved (or, for a run older than that
 * flag, as before): a missing transcript is never inferred from the store, whose answer for a missing key is a 403
 * without s3:ListBucket.
 */
export interface TranscriptStore {
  load(runId: string): Promise<Transcript | null>;
  save(runId: string, transcript: Transcript): Promise<void>;
}

/** Why a run's channels closed: what the trace event and the log line say. */
export type ClosedBecause = "archive-read" | "restricted-class" | "classifier-error" | "restricted-tool";

/**
 * A run's channel state, durable across rounds (each round is another Lambda invocation): closing is a
 * conditional write that later rounds and redeliveries read back. Never reopened.
 */
export interface EgressChannel {
  /** Close the run's channels; closing an already closed run changes nothing. */
  close(runId: string, because: ClosedBecause): Promise<void>;
  isClosed(runId: string): Promise<boolean>;
  /**
   * What this delivery knows before any read: `open` when its message said the channels were open and the round
   * is claimed for the first time; false forgets any knowledge an earlier delivery left. Called once per round.
   */
  assume(runId: string, open: boolean): void;
  /** Open as far as this delivery knows without a read (assumed open and not closed since). */
  knownOpen(runId: string): boolean;
}

/** What the checks and the tool context use of a run's channels: close them, and ask. */
export type ChannelState = Pick<EgressChannel, "close" | "isClosed">;

export interface TraceSink {
  append(
    runId: string,
    event: { readonly type: string; readonly round: number; readonly data: Record<string, unknown> },
  ): Promise<void>;
}

/** G10: the daily cap that stopped a run (shared/agent/runs/budgets.ts). */
export type BudgetReason =
  | "agent-runs-per-day"
  | "sender-runs-per-day"
  | "agent-tokens-per-day"
  | "sender-tokens-per-day";
export type BudgetResult = Ok | Fail<BudgetReason>;

/** Per-sender and per-agent budgets (G10), atomic counters checked before inference. */
export interface BudgetGate {
  beforeInference(run: LoadedRun, agent: AgentItem, round: number): Promise<BudgetResult>;
  afterInference(run: LoadedRun, agent: AgentItem, usage: Usage): Promise<void>;
  /** At most one notice per sender per day; called when a budget stops a run. */
  notifyExceeded(run: LoadedRun, agent: AgentItem, reason: BudgetReason): Promise<void>;
}

/** Builds round 1's conversation: the agent's instructions + standing rules, and the fenced untrusted input. */
export interface ContextBuilder {
  initial(run: LoadedRun, agent: AgentItem): Promise<Omit<Transcript, "lastRound">>;
}

export interface StepDeps {
  readonly config: DeploymentConfig;
  readonly registry: ToolRegistry;
  /** The run's channels (G18), when the wiring gives the step the knowledge its messages carry. */
  readonly channel?: EgressChannel;
  /** The admin state; the wiring reads it once per delivery (see beginReceive). */
  loadAdmin(): Promise<AdminSnapshot>;
  /**
   * A new delivery starts: what the wiring keeps for the length of one delivery (the admin snapshot, the run's
   * message) is read afresh from here on, so an admin change made before this delivery is seen by all of it.
   * Called once per SQS delivery, by the message handler (handle-message.ts), before it reads the message.
   */
  beginReceive?(): void;
  model(modelId: string): ModelProvider | null;
  /**
   * The run with its trigger loaded (runs/load-run.ts), null when there is none. Not a plain read: a run whose
   * trigger is gone is ended `failed` here, with its trace event, G19 report and signed event.
   */
  loadRun(runId: string): Promise<LoadedRun | null>;
  readonly runs: StepRuns;
  readonly ledger: RoundLedger;
  readonly transcripts: TranscriptStore;
  readonly trace: TraceSink;
  readonly budgets: BudgetGate;
  readonly context: ContextBuilder;
  readonly cache: ToolResultCache;
  enqueue(message: StepPayload): Promise<void>;
  makeToolContext(
    run: LoadedRun,
    agent: AgentItem,
    round: number,
    call: ToolCallRequest,
    key: string,
    /** The toolkits that granted the call (G11): what its tool may read follows from them. */
    grantedBy: readonly ToolkitItem[],
  ): ToolContext;
  checks?(run: LoadedRun, transcript: Transcript, agent: AgentItem): readonly CallCheck[];
  /**
   * Narrows the catalog the gates admitted, before it is offered (G20: an MCP tool whose live definition no longer
   * matches its reviewed pin is left out); may ask the run to record trace events.
   */
  offer?(
    tools: readonly Tool[],
    run: { readonly runId: string; readonly agent: string },
    record: (event: { readonly type: string; readonly data: Record<string, unknown> }) => Promise<void>,
  ): Promise<readonly Tool[]>;
  /** G14: a call to a `confirm` tool adds an operation to the run's plan instead of running. */
  propose?(
    run: LoadedRun,
    agent: AgentItem,
    call: ToolCallRequest,
    input: unknown,
    toolkits: readonly string[],
  ): Promise<ToolResult>;
  /** Called once when a run ends (e.g. to mail the confirm card for its plan). */
  afterRun?(run: LoadedRun, agent: AgentItem, state: Exclude<RunState, "running">): Promise<void>;
  readonly logger: Logger;
  /** G19: a run that ends `failed` is reported, and its proven sender told at most once a day. */
  readonly runFailures: RunFailures;
  /** How long a claimed round is protected from a concurrent duplicate delivery; > the function timeout. */
  readonly leaseMs: number;
  /** Signed events out (docs/events.md): `run.completed` / `run.failed` when a run ends. */
  readonly webhooks: WebhookSink;
}

// The records the agent's rules read and write below the step loop: runs as the run table keeps them, the trace,
// the thread's activity. shared/agent/wiring.ts implements them over the store.

/**
 * The run record (shared/ports/runs.ts) narrowed to what the agent's rules read: its trigger by id (the message,
 * or the responsibility). A Pick, not a copy, so a field changes in one place.
 */
export type StoredRun = Pick<
  RunRecord,
  | "runId"
  | "agent"
  | "kind"
  | "state"
  | "messageId"
  | "responsibilityId"
  | "sender"
  | "threadId"
  | "maxRounds"
  | "correlationId"
  | "createdAt"
  | "transcriptSaved"
> &
  Partial<Pick<RunRecord, "round" | "finishReason">>;

/** The accepted inbound message a reply run answers, as verify stored it: the fields the step loop reads. */
export type StoredMessage = Pick<
  MessageRecord,
  "id" | "threadId" | "subject" | "headerMessageId" | "from" | "fromName" | "addressing" | "threadedBy"
>;

/** Why the trace refused an event (the store's run-event repository): an event over 32 KB. */
export type RunEventRefusal = "too-large";

/** The run's trace, append-only. An append can be refused (an event too large to store). */
export interface RunEventLog {
  append(runId: string, event: RunEvent): Promise<Ok | Fail<RunEventRefusal>>;
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

/** A run that ended `failed`, as far as whoever failed it knows it (the step loop, or a last delivery). */
export interface FailedRun {
  readonly runId: string;
  readonly agent: string;
  readonly correlationId: string;
  /** The proven sender (G2) of a reply run; null for a scheduled run, or when the run's mail is gone. */
  readonly sender: Pick<VerifiedSender, "address" | "routingKey"> | null;
  /** The accepted mail that started it, when known: its `automatic` flag decides whether the sender is told. */
  readonly messageId: string | null;
}

/** What the step loop is handed: report one failed run (G19). */
export interface RunFailures {
  failed(run: FailedRun, reason: RunEndReason, detail?: string): Promise<void>;
}
