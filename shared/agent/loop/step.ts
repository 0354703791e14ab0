import { type AgentItem, roundLimit } from "../../admin/index.ts";
import { PosternError } from "../../errors.ts";
import { type CarriedResult, type StepMessage, stepMessageSchema } from "../../messages/index.ts";
import type {
  AssistantMessage,
  Message,
  ModelFailureReason,
  ToolResultPart,
  ToolResultsMessage,
} from "../../model/index.ts";
import type { FinalRunState } from "../../ports/index.ts";
import { type ToolResult, toolFailure } from "../../tool-framework/index.ts";
import type { LoadedRun, RunEndReason, StepDeps, Transcript } from "../ports.ts";
import { endingRun, endRun } from "../runs/end-run.ts";
import { emitRunEnd } from "../runs/run-end-event.ts";
import { dispatchToolCall, traceCallId } from "./dispatch.ts";
import { toModelToolResult } from "./tool-result.ts";
import { type RunGateInput, toolsForRun } from "./toolkits.ts";

export type StepOutcome =
  | {
      readonly status: "skipped";
      readonly reason: "run-missing" | "run-not-running" | "round-done" | "agent-missing";
    }
  | { readonly status: "busy" }
  | { readonly status: "retry"; readonly reason: ModelFailureReason }
  | { readonly status: "continued"; readonly next: number }
  | {
      readonly status: "finished";
      readonly state: FinalRunState;
      readonly reason: RunEndReason;
    };

/** Calls answered with an error before the dispatcher sees them: too many in a turn, a repeated id, bad JSON. */
export type TurnRefusal = "tool-call-limit" | "tool-call-id-duplicate" | "tool-input-malformed";

/** More calls than this in one turn are answered with an error instead of being run (a runaway model). */
export const MAX_CALLS_PER_ROUND = 16;

/** One round of one run, as the parts of a step share it. */
interface Round {
  readonly deps: StepDeps;
  readonly run: LoadedRun;
  readonly agent: AgentItem;
  readonly gate: RunGateInput;
  readonly round: number;
  /** Tool results by idempotency key: this round's, as far as a delivery may have stored them. */
  readonly cache: StepDeps["cache"];
  /** What the message said about the run, heeded only on the round's first claim (StepMessage). */
  readonly known: Pick<StepMessage, "fresh" | "noPlan" | "channelOpen">;
  /** Set when this delivery proposed an operation (G14): the run then has a plan. */
  readonly proposals: { made: boolean };
  /** The queue's last delivery of this message: a retryable failure now ends the run instead. */
  readonly lastDelivery: boolean;
  record(type: string, data: Record<string, unknown>): Promise<void>;
}

/**
 * The first claim of a round finds nothing cached for it: no delivery ran its tools. Its lookups are skipped
 * (a read per tool call); results are still stored for a delivery that takes the round over.
 */
const nothingCachedYet = (cache: StepDeps["cache"]): StepDeps["cache"] => ({
  get: async () => null,
  put: (key, result) => cache.put(key, result),
});

export interface StepOptions {
  /** This delivery is the queue's last (its redrive maxReceiveCount): nothing will retry a retryable failure. */
  readonly lastDelivery?: boolean;
}

/**
 * One bounded model round of a run (G10, G11). Idempotent under redelivery and crashes: the round is claimed in
 * the ledger; the model turn is persisted before any tool runs (the round's one transcript write), so a resumed
 * round never calls the model twice; tool results are cached by idempotency key, so a resumed round replays them;
 * they reach the next round in its message (or, too large or with media, saved with this round); the next round
 * is enqueued before the round is marked done, and a duplicate of the next round is absorbed by its own claim.
 */
export async function runStep(
  msg: StepMessage,
  deps: StepDeps,
  opts: StepOptions = {},
): Promise<StepOutcome> {
  deps.beginDelivery?.();
  const run = await deps.runs.get(msg.runId);
  if (!run) return skip(deps, msg, "run-missing");
  if (run.state !== "running") {
    // A delivery of an ended run comes after a crash: the function that ended it may have been killed before its
    // event was queued, so it is emitted again (same webhook-id; a receiver that saw it drops the duplicate).
    await emitRunEnd(deps.webhooks, run, {
      state: run.state,
      reason: run.finishReason ?? "",
      rounds: run.round ?? msg.round,
    });
    return skip(deps, msg, "run-not-running");
  }
  const admin = await deps.loadAdmin();
  const agent = admin.agents.find((a) => a.address === run.agent && a.enabled);
  if (!agent) {
    await endRun(deps, endingRun(run), { state: "failed", reason: "agent-missing", round: msg.round });
    return skip(deps, msg, "agent-missing");
  }
  const maxRounds = roundLimit(deps.config, agent);

  const claim = await deps.ledger.claim(run.runId, msg.round, deps.leaseMs);
  if (claim.status === "busy") return { status: "busy" };
  if (claim.status === "done") return skip(deps, msg, "round-done");
  // A run is created at round 1 (run-repo.ts create): noting round 1 would be a write refused by its condition.
  if (msg.round > 1) await deps.runs.noteRound(run.runId, msg.round);
  const r: Round = {
    deps,
    run,
    agent,
    round: msg.round,
    cache: claim.first ? nothingCachedYet(deps.cache) : deps.cache,
    known: claim.first ? msg : {},
    proposals: { made: false },
    lastDelivery: opts.lastDelivery === true,
    gate: {
      agent: agent.address,
      sender: run.sender,
      kind: run.kind,
      toolkits: admin.toolkits,
      registry: deps.registry,
    },
    record: (type, data) => deps.events.append(run.runId, { type, round: msg.round, data }),
  };
  deps.channel?.assume(run.runId, r.known.channelOpen === true);
  const start = await loadOrStart(r, msg);
  const took = await takeTurn(r, start);
  if ("status" in took) {
    // A run that ends before this round's turn is saved keeps what it had: the round 1 context, the results the
    // message carried (a retried round gets them again from its message).
    if (took.status === "finished" && !start.saved) await saveTranscript(r, start, start.transcript);
    return took;
  }
  const { turn } = took;
  if (turn.toolCalls.length === 0) return finish(r, "completed", "model-stopped");
  const results = await answerTurn(r, turn, took.transcript);
  if (results !== null && endsWithReply(r, turn, results)) {
    // The answer went out: another model call would only say "done", with the whole context billed again. Nothing
    // more is saved (a PUT per mail): the turn is in the transcript, the send's result in the trace, and
    // a delivery that resumes this round answers the turn again from the tool-result cache (the send is not made
    // twice) and ends the run here the same way.
    return finish(r, "completed", "replied");
  }

  const last = msg.round >= maxRounds;
  // The results ride with the next round's message when they are small and have no media (one transcript write
  // per round); otherwise, and when no round follows, they are saved now.
  const carried = !last && results !== null && carryable(results) ? results : null;
  if (results !== null && carried === null)
    await deps.transcripts.save(run.runId, withResults(took.transcript, results));
  if (last) return finish(r, "turn-limit", `reached ${maxRounds} rounds`);
  await deps.enqueue({
    runId: run.runId,
    round: msg.round + 1,
    ...(carried ? { results: carried.map(carriedResult) } : {}),
    // What this delivery knows without a read, for the next round's first claim.
    ...(noPlanYet(r) ? { noPlan: true } : {}),
    ...(deps.channel?.knownOpen(run.runId) ? { channelOpen: true } : {}),
  });
  await deps.ledger.markDone(run.runId, msg.round);
  await r.record("round-done", { next: msg.round + 1 });
  return { status: "continued", next: msg.round + 1 };
}

/**
 * This round's model turn. The transcript decides: if this round's turn is saved, the model was called; never call
 * it twice. Otherwise the budgets are checked before inference (G10) and the turn is saved before any tool runs.
 */
async function takeTurn(
  r: Round,
  start: Start,
): Promise<{ turn: AssistantMessage; transcript: Transcript } | StepOutcome> {
  const { deps, run, agent } = r;
  const { transcript } = start;
  if (transcript.lastRound === r.round) {
    const turn = lastAssistant(transcript.messages);
    await r.record("round-resumed", { toolCalls: turn.toolCalls.length });
    return { turn, transcript };
  }
  const budget = await deps.budgets.beforeInference(run, agent, r.round);
  // A refusal is its own event; a pass is said by the model request that follows it (a round writes one
  // event for both).
  if (!budget.ok) {
    await r.record("budget-check", { ok: false, reason: budget.reason });
    await deps.budgets.notifyExceeded(run, agent, budget.reason);
    return finish(r, "budget-exceeded", budget.reason);
  }
  const model = deps.model(agent.model);
  if (!model) return finish(r, "failed", "model-unknown");
  const admitted = toolsForRun(r.gate);
  // G20: tools from outside servers are offered only while their live definitions match the reviewed pins.
  const offered = deps.offer
    ? await deps.offer(admitted, { runId: run.runId, agent: agent.address }, (e) => r.record(e.type, e.data))
    : admitted;
  await r.record("model-request", {
    budget: "ok",
    model: agent.model,
    tools: offered.map((t) => t.name),
    messages: transcript.messages.length,
    // How the mail that started the run was addressed: what the trace shows beside round 1 (docs/gate.md).
    ...(r.round === 1 && run.trigger.kind === "message" && run.trigger.message.addressing !== undefined
      ? { addressing: run.trigger.message.addressing }
      : {}),
  });
  const result = await model.generate({
    system: transcript.system,
    messages: transcript.messages,
    tools: offered.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputJsonSchema })),
    maxTokens: deps.config.models.find((m) => m.id === agent.model)?.maxTokens ?? 4096,
  });
  if (!result.ok) {
    // On the queue's last delivery nothing retries: the trace must not promise it, and the run ends with the
    // model's own reason (not the generic step-retries-exhausted).
    const retry = result.retryable && !r.lastDelivery;
    await r.record("model-failure", {
      reason: result.reason,
      detail: result.detail,
      retryable: retry,
      ...(result.retryable && r.lastDelivery ? { lastTry: true } : {}),
    });
    if (retry) {
      // Let the redelivery take the round at once instead of waiting out the lease.
      await deps.ledger.release(run.runId, r.round);
      return { status: "retry", reason: result.reason };
    }
    return finish(r, "failed", result.reason, result.detail);
  }
  await deps.budgets.afterInference(run, agent, result.turn.usage);
  const turn: AssistantMessage = {
    role: "assistant",
    text: result.turn.text,
    toolCalls: result.turn.toolCalls,
  };
  // The model's plain text is recorded for the trace and never delivered: only send_email speaks.
  await r.record("model-turn", {
    text: result.turn.text.slice(0, 2000),
    toolCalls: result.turn.toolCalls.map((c) => ({
      id: traceCallId(c.id),
      name: String(c.name).slice(0, 100),
    })),
    stopReason: result.turn.stopReason,
    usage: result.turn.usage,
  });
  const saved: Transcript = { ...transcript, messages: [...transcript.messages, turn], lastRound: r.round };
  await saveTranscript(r, start, saved);
  return { turn, transcript: saved };
}

/**
 * Save the transcript; the first save of a run is then noted on the run item, before any tool runs, so
 * a delivery that takes the round over reads the turn instead of asking the model again. A crash between the two
 * leaves a turn whose tools never ran: the next delivery asks the model again and overwrites it, as after a crash
 * before the save.
 */
async function saveTranscript(r: Round, start: Start, transcript: Transcript): Promise<void> {
  await r.deps.transcripts.save(r.run.runId, transcript);
  if (!start.stored) await r.deps.runs.noteTranscript(r.run.runId);
}

/**
 * Run the turn's tool calls, unless a crashed delivery already saved their results (then null: nothing to add).
 * A resumed round answers again from the tool-result cache, so no tool runs twice.
 */
async function answerTurn(
  r: Round,
  turn: AssistantMessage,
  transcript: Transcript,
): Promise<ToolResultPart[] | null> {
  // Resumed after the results were saved (a crash before the next round was enqueued): do not answer twice.
  const answered = transcript.lastRound === r.round && transcript.messages.at(-1)?.role === "tool";
  if (answered) return null;
  return runToolCalls(turn, r, transcript);
}

/**
 * A round whose only call is a successful `send_email` reply ends the run (the model was told so in its standing
 * rules), unless the agent opts out. Any other call in the same turn, a refused or failed send, or a `new` mail
 * means the model still has work: the run continues. Only a run started by mail can reply (a scheduled run's reply
 * is refused as `reply-unavailable`), and send_email never proposes (it is not a confirm tool).
 */
export function endsWithReply(
  r: Pick<Round, "agent">,
  turn: AssistantMessage,
  results: readonly ToolResultPart[],
): boolean {
  if (r.agent.continueAfterReply === true) return false;
  if (turn.toolCalls.length !== 1 || results.length !== 1) return false;
  const [call] = turn.toolCalls;
  const [result] = results;
  if (call?.name !== "send_email" || result?.isError !== false || result.toolCallId !== call.id) return false;
  const input = call.input as { mode?: unknown } | undefined;
  return typeof input === "object" && input !== null && input.mode === "reply";
}

function withResults(transcript: Transcript, results: readonly ToolResultPart[]): Transcript {
  return {
    ...transcript,
    messages: [...transcript.messages, { role: "tool", results } satisfies ToolResultsMessage],
  };
}

/** Small enough for the step message and free of media (images and documents are never carried). */
function carryable(results: readonly ToolResultPart[]): boolean {
  if (results.some((x) => x.attachments && x.attachments.length > 0)) return false;
  return stepMessageSchema.shape.results.safeParse(results.map(carriedResult)).success;
}

function carriedResult(x: ToolResultPart): CarriedResult {
  return { toolCallId: x.toolCallId, isError: x.isError, content: x.content };
}

/** Answer every tool call of a turn: limits, duplicate and malformed ids, then the dispatcher's gates. */
async function runToolCalls(
  turn: AssistantMessage,
  c: Round,
  transcript: Transcript,
): Promise<ToolResultPart[]> {
  const { deps, run, agent, gate, record } = c;
  const msg = { round: c.round };
  const results: ToolResultPart[] = [];
  const checks = deps.checks?.(run, transcript, agent) ?? [];
  const seenIds = new Set<string>();
  for (const [i, call] of turn.toolCalls.entries()) {
    if (i >= MAX_CALLS_PER_ROUND) {
      results.push(
        errorResult(call.id, "tool-call-limit", `at most ${MAX_CALLS_PER_ROUND} tool calls per turn`),
      );
      continue;
    }
    // A repeated id would share the first call's idempotency key, and so read back its cached result.
    if (seenIds.has(String(call.id))) {
      await record("tool-refused", {
        callId: traceCallId(call.id),
        name: String(call.name).slice(0, 100),
        reason: "tool-call-id-duplicate",
      });
      results.push(
        errorResult(call.id, "tool-call-id-duplicate", "each tool call in a turn needs its own id"),
      );
      continue;
    }
    seenIds.add(String(call.id));
    if (call.malformedInput) {
      await record("tool-refused", {
        callId: traceCallId(call.id),
        name: String(call.name).slice(0, 100),
        reason: "tool-input-malformed",
      });
      results.push(
        errorResult(
          call.id,
          "tool-input-malformed",
          `arguments were not valid JSON: ${call.malformedInput.error}`,
        ),
      );
      continue;
    }
    const outcome = await dispatchToolCall(call, {
      gate,
      cache: c.cache,
      runId: run.runId,
      round: msg.round,
      checks,
      record: (e) => record(e.type, e.data as Record<string, unknown>),
      makeContext: (c, key, grantedBy) => deps.makeToolContext(run, agent, msg.round, c, key, grantedBy),
      ...(deps.propose
        ? {
            propose: (proposed, input, kits) => {
              c.proposals.made = true;
              return deps.propose?.(run, agent, proposed, input, kits) as Promise<ToolResult>;
            },
          }
        : {}),
    });
    results.push(toModelToolResult(call.id, outcome));
  }
  return results;
}

/**
 * The transcript a round starts from, whether it is the one saved (false: built or extended here), and whether the
 * run has a saved transcript at all (false: this round's first save is the run's first, to be noted on the run).
 */
interface Start {
  readonly transcript: Transcript;
  readonly saved: boolean;
  readonly stored: boolean;
}

/**
 * Whether the run has a saved transcript is the run's own state, never S3's answer for a missing key: its
 * item says so after the first save, and every round after the first follows a saved turn. A run created before the
 * flag (absent) is read as it was: unless its message says it was just created (no read).
 */
function transcriptStored(r: Round, msg: StepMessage): boolean {
  if (msg.round > 1) return true;
  return r.run.transcriptSaved ?? r.known.fresh !== true;
}

/**
 * The conversation this round continues: the saved transcript, with the previous round's results appended when
 * they came with the message. Round 1 builds it, and does not save it: the round's one write is after the model
 * turn, and a round 1 that crashes before it builds the context again.
 */
async function loadOrStart(r: Round, msg: StepMessage): Promise<Start> {
  const { deps, run, agent } = r;
  const stored = transcriptStored(r, msg);
  const existing = stored ? await deps.transcripts.load(run.runId) : null;
  if (!existing) {
    // Only a run older than the flag may find nothing where it looked (its round 1 crashed before any save).
    if (stored && (msg.round > 1 || run.transcriptSaved === true))
      throw new PosternError(
        "invariant-broken",
        `run ${run.runId}: transcript missing at round ${msg.round} though the run says it was saved`,
      );
    return {
      transcript: { ...(await deps.context.initial(run, agent)), lastRound: 0 },
      saved: false,
      stored: false,
    };
  }
  const pending = existing.lastRound === msg.round - 1 && existing.messages.at(-1)?.role === "assistant";
  // A resumed round (its turn is saved, and holds the previous results), or results saved with their round.
  if (!pending) return { transcript: existing, saved: true, stored: true };
  if (msg.results) return { transcript: withResults(existing, msg.results), saved: false, stored: true };
  // Neither saved nor carried (a message sent before results were carried, or one whose results a consumer's
  // older schema dropped): answer the previous round's turn again, as a resumed round would, from the
  // tool-result cache, so no tool runs twice.
  deps.logger.warn("previous round's tool results not carried; replayed from the cache", {
    runId: run.runId,
    round: msg.round - 1,
  });
  const previous: Round = {
    ...r,
    round: msg.round - 1,
    cache: deps.cache,
    record: (type, data) => deps.events.append(run.runId, { type, round: msg.round - 1, data }),
  };
  const results = await runToolCalls(lastAssistant(existing.messages), previous, existing);
  return { transcript: withResults(existing, results), saved: false, stored: true };
}

function lastAssistant(messages: readonly Message[]): AssistantMessage {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "assistant") return m;
  }
  throw new PosternError("invariant-broken", "transcript has no assistant turn to resume");
}

function errorResult(id: string, reason: TurnRefusal, detail: string): ToolResultPart {
  return toModelToolResult(id, toolFailure(reason, detail));
}

/** No operation proposed in the run so far, as this delivery knows without reading the plan store. */
const noPlanYet = (r: Round): boolean => r.known.noPlan === true && !r.proposals.made;

async function finish(
  r: Round,
  state: FinalRunState,
  reason: RunEndReason,
  /** For a failed run: the provider's own message, kept with the failure (G19). */
  detail?: string,
): Promise<StepOutcome> {
  const { deps, run, agent, round } = r;
  // Before the run is marked finished: a crash here is redelivered and retried (afterRun is idempotent). A run
  // known to have proposed nothing has no plan card to send (the plan store is not read).
  if (!noPlanYet(r)) await deps.afterRun?.(run, agent, state);
  // No ledger write: a finished run is not running, so every later delivery of any of its rounds is skipped before
  // it claims one (runStep's first check), a crash right after this included.
  await endRun(deps, endingRun(run), { state, reason, round, ...(detail !== undefined ? { detail } : {}) });
  return { status: "finished", state, reason };
}

async function skip(
  deps: StepDeps,
  msg: StepMessage,
  reason: "run-missing" | "run-not-running" | "round-done" | "agent-missing",
): Promise<StepOutcome> {
  deps.logger.info("agent step skipped", { runId: msg.runId, round: msg.round, reason });
  return { status: "skipped", reason };
}
