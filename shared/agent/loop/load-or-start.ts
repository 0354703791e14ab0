import { PosternError } from "../../errors.ts";
import type { AssistantMessage, Message, ToolResultPart, ToolResultsMessage } from "../../model/index.ts";
import type { StepPayload } from "../../payloads/index.ts";
import type { Transcript } from "../ports.ts";
import type { Round } from "./round.ts";
import { runToolCalls } from "./run-tool-calls.ts";
import { justCreated } from "./step-knowledge.ts";

/**
 * The transcript a round starts from, whether it is the one saved (false: built or extended here), and whether the
 * run has a saved transcript at all (false: this round's first save is the run's first, to be noted on the run).
 */
export interface Start {
  readonly transcript: Transcript;
  readonly saved: boolean;
  readonly stored: boolean;
}

/**
 * Whether the run has a saved transcript is the run's own state, never S3's answer for a missing key: its
 * item says so after the first save, and every round after the first follows a saved turn. A run created before the
 * flag (absent) is read as it was: unless its message says it was just created (no read).
 */
function transcriptStored(r: Round, msg: StepPayload): boolean {
  if (msg.round > 1) return true;
  return r.run.transcriptSaved ?? !justCreated(r.known);
}

/**
 * The conversation this round continues: the saved transcript, with the previous round's results appended when
 * they came with the message. Round 1 builds it, and does not save it: the round's one write is after the model
 * turn, and a round 1 that crashes before it builds the context again.
 */
export async function loadOrStart(r: Round, msg: StepPayload): Promise<Start> {
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
    record: (type, data) => deps.trace.append(run.runId, { type, round: msg.round - 1, data }),
  };
  const results = await runToolCalls(lastAssistant(existing.messages), previous, existing);
  return { transcript: withResults(existing, results), saved: false, stored: true };
}

export function lastAssistant(messages: readonly Message[]): AssistantMessage {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "assistant") return m;
  }
  throw new PosternError("invariant-broken", "transcript has no assistant turn to resume");
}

export function withResults(transcript: Transcript, results: readonly ToolResultPart[]): Transcript {
  return {
    ...transcript,
    messages: [...transcript.messages, { role: "tool", results } satisfies ToolResultsMessage],
  };
}
