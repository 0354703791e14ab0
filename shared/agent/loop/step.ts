import { roundLimit } from "../../admin/index.ts";
import type { StepPayload } from "../../payloads/index.ts";
import type { StepDeps } from "../ports.ts";
import { endingRun, endRun } from "../runs/end-run.ts";
import { emitRunEnd } from "../runs/run-end-event.ts";
import { endsWithReply } from "./ends-with-reply.ts";
import { finishStep, skipStep } from "./finish-step.ts";
import { loadOrStart } from "./load-or-start.ts";
import { nextRound } from "./next-round.ts";
import type { Round, StepOutcome } from "./round.ts";
import { answerTurn } from "./run-tool-calls.ts";
import { knownOnClaim } from "./step-knowledge.ts";
import { saveTranscript, takeTurn } from "./take-turn.ts";

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
  msg: StepPayload,
  deps: StepDeps,
  opts: StepOptions = {},
): Promise<StepOutcome> {
  const run = await deps.loadRun(msg.runId);
  if (!run) return skipStep(deps, msg, "run-missing");
  if (run.state !== "running") {
    // A delivery of an ended run comes after a crash: the function that ended it may have been killed before its
    // event was queued, so it is emitted again (same webhook-id; a receiver that saw it drops the duplicate).
    await emitRunEnd(deps.webhooks, run, {
      state: run.state,
      reason: run.finishReason ?? "",
      rounds: run.round ?? msg.round,
    });
    return skipStep(deps, msg, "run-not-running");
  }
  const admin = await deps.loadAdmin();
  const agent = admin.agents.find((a) => a.address === run.agent && a.enabled);
  if (!agent) {
    await endRun(deps, endingRun(run), { state: "failed", reason: "agent-missing", round: msg.round });
    return skipStep(deps, msg, "agent-missing");
  }
  const maxRounds = roundLimit(deps.config, agent);

  const claim = await deps.ledger.claim(run.runId, msg.round, deps.leaseMs);
  if (claim.status === "busy") return { status: "busy" };
  if (claim.status === "done") return skipStep(deps, msg, "round-done");
  // A run is created at round 1 (run-repo.ts create): noting round 1 would be a write refused by its condition.
  if (msg.round > 1) await deps.runs.noteRound(run.runId, msg.round);
  const r: Round = {
    deps,
    run,
    agent,
    round: msg.round,
    cache: claim.first ? nothingCachedYet(deps.cache) : deps.cache,
    known: knownOnClaim(msg, claim.first, deps.channel),
    proposals: { made: false },
    lastDelivery: opts.lastDelivery === true,
    gate: {
      agent: agent.address,
      sender: run.sender,
      kind: run.kind,
      toolkits: admin.toolkits,
      registry: deps.registry,
    },
    record: (type, data) => deps.trace.append(run.runId, { type, round: msg.round, data }),
  };
  const start = await loadOrStart(r, msg);
  const took = await takeTurn(r, start);
  if ("status" in took) {
    // A run that ends before this round's turn is saved keeps what it had: the round 1 context, the results the
    // message carried (a retried round gets them again from its message).
    if (took.status === "finished" && !start.saved) await saveTranscript(r, start, start.transcript);
    return took;
  }
  const { turn } = took;
  if (turn.toolCalls.length === 0) return finishStep(r, "completed", "model-stopped");
  const results = await answerTurn(r, turn, took.transcript);
  if (results !== null && endsWithReply(r, turn, results)) {
    // The answer went out: another model call would only say "done", with the whole context billed again. Nothing
    // more is saved (a PUT per mail): the turn is in the transcript, the send's result in the trace, and
    // a delivery that resumes this round answers the turn again from the tool-result cache (the send is not made
    // twice) and ends the run here the same way.
    return finishStep(r, "completed", "replied");
  }

  return nextRound(r, took.transcript, results, maxRounds);
}
