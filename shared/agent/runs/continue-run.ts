import type { StepPayload } from "../../payloads/index.ts";
import type { RunTable } from "../../ports/index.ts";
import { capResultText, MAX_ERROR_DETAIL_CHARS } from "../loop/tool-result.ts";
import type { ApplyDeps, OpResult } from "../plans/apply-plan.ts";
import type { Transcript, TranscriptStore } from "../ports.ts";

/**
 * The original conversation, plus one engine-written turn: the outcome line (plan-outcome.ts: applied, or failed and
 * why) and how each operation went, numbered as the card numbered them, those never run included. Each
 * operation's data enters the transcript under the same cap as a tool result in the loop.
 */
export function continuationTranscript(
  original: Transcript,
  summary: string,
  results: readonly OpResult[],
): Transcript {
  const text = `${summary}\nResults:\n${JSON.stringify(
    results.map((r) => ({
      operation: r.number,
      tool: r.tool,
      summary: r.summary,
      ...(r.result === null
        ? { status: "not-run" }
        : r.result.ok
          ? { status: "ok", data: capResultText(r.result.data ?? null) }
          : {
              status: "failed",
              error: r.result.reason,
              message: String(r.result.detail ?? "").slice(0, MAX_ERROR_DETAIL_CHARS),
            }),
    })),
  )}`;
  return {
    ...original,
    messages: [...original.messages, { role: "user", content: [{ type: "text", text }] }],
    lastRound: 0,
  };
}

/**
 * After an approved plan ran (G14), applied or failed, a new run (`<runId>-applied`) continues the conversation with the results, so the
 * agent can tell the sender what happened. Idempotent: the run is created once, and its round 1 is claimed once.
 */
export function continueRun(deps: {
  readonly transcripts: TranscriptStore;
  readonly runs: Pick<RunTable, "get" | "create" | "noteTranscript">;
  enqueue(message: StepPayload): Promise<void>;
}): ApplyDeps["continueRun"] {
  return async (run, agent, summary, results) => {
    const runId = `${run.runId}-applied`;
    const stored = await deps.runs.get(run.runId);
    // The run's own item says whether it has a transcript: S3 is never asked about a key never written.
    if (!stored || stored.transcriptSaved === false) return;
    const original = await deps.transcripts.load(run.runId);
    if (!original) return;
    const created = await deps.runs.create({
      runId,
      agent: agent.address,
      kind: stored.kind,
      messageId: stored.messageId,
      responsibilityId: stored.responsibilityId,
      sender: stored.sender,
      threadId: stored.threadId,
      maxRounds: stored.maxRounds,
      correlationId: stored.correlationId,
    });
    // Saved, and noted on the new run, unless a delivery before this one got that far: a crash between
    // the create and the note is finished here, not left to a round 1 that would start without the results.
    const saved = created.ok ? false : (await deps.runs.get(runId))?.transcriptSaved === true;
    if (!saved) {
      await deps.transcripts.save(runId, continuationTranscript(original, summary, results));
      await deps.runs.noteTranscript(runId);
    }
    await deps.enqueue({ runId, round: 1 });
  };
}
