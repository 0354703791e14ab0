import type { ToolResultPart } from "../../model/index.ts";
import type { CarriedResult } from "../../payloads/index.ts";
import { stepPayloadSchema } from "../../payloads/index.ts";
import type { Transcript } from "../ports.ts";
import { finishStep } from "./finish-step.ts";
import { withResults } from "./load-or-start.ts";
import type { Round, StepOutcome } from "./round.ts";
import { knowledgeForNextRound } from "./step-knowledge.ts";

/**
 * A round whose turn was answered and that did not end the run: the last round ends it at the turn limit; any
 * other enqueues the next round (with its results, when they fit) before it is marked done, so a crash between
 * the two is absorbed by the next round's own claim.
 */
export async function nextRound(
  r: Round,
  transcript: Transcript,
  results: readonly ToolResultPart[] | null,
  maxRounds: number,
): Promise<StepOutcome> {
  const last = r.round >= maxRounds;
  // The results ride with the next round's message when they are small and have no media (one transcript write
  // per round); otherwise, and when no round follows, they are saved now.
  const carried = !last && results !== null && carryable(results) ? results : null;
  if (results !== null && carried === null)
    await r.deps.transcripts.save(r.run.runId, withResults(transcript, results));
  if (last) return finishStep(r, "turn-limit", `reached ${maxRounds} rounds`);
  await r.deps.enqueue({
    runId: r.run.runId,
    round: r.round + 1,
    ...(carried ? { results: carried.map(carriedResult) } : {}),
    ...knowledgeForNextRound(r.run.runId, r.known, r.proposals, r.deps.channel),
  });
  await r.deps.ledger.markDone(r.run.runId, r.round);
  await r.record("round-done", { next: r.round + 1 });
  return { status: "continued", next: r.round + 1 };
}

/** Small enough for the step message and free of media (images and documents are never carried). */
function carryable(results: readonly ToolResultPart[]): boolean {
  if (results.some((x) => x.attachments && x.attachments.length > 0)) return false;
  return stepPayloadSchema.shape.results.safeParse(results.map(carriedResult)).success;
}

function carriedResult(x: ToolResultPart): CarriedResult {
  return { toolCallId: x.toolCallId, isError: x.isError, content: x.content };
}
