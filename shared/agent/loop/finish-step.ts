import type { StepPayload } from "../../payloads/index.ts";
import type { FinalRunState } from "../../ports/index.ts";
import type { RunEndReason, StepDeps } from "../ports.ts";
import { endingRun, endRun } from "../runs/end-run.ts";
import type { Round, StepOutcome } from "./round.ts";
import { noPlanYet } from "./step-knowledge.ts";

/** End the run from inside a round: the plan card first (unless no plan was proposed), then the one run end. */
export async function finishStep(
  r: Round,
  state: FinalRunState,
  reason: RunEndReason,
  /** For a failed run: the provider's own message, kept with the failure (G19). */
  detail?: string,
): Promise<StepOutcome> {
  const { deps, run, agent, round } = r;
  // Before the run is marked finished: a crash here is redelivered and retried (afterRun is idempotent). A run
  // known to have proposed nothing has no plan card to send (the plan store is not read).
  if (!noPlanYet(r.known, r.proposals)) await deps.afterRun?.(run, agent, state);
  // No ledger write: a finished run is not running, so every later delivery of any of its rounds is skipped before
  // it claims one (runStep's first check), a crash right after this included.
  await endRun(deps, endingRun(run), { state, reason, round, ...(detail !== undefined ? { detail } : {}) });
  return { status: "finished", state, reason };
}

/** A delivery with nothing to do: logged, and done. */
export async function skipStep(
  deps: StepDeps,
  msg: StepPayload,
  reason: "run-missing" | "run-not-running" | "round-done" | "agent-missing",
): Promise<StepOutcome> {
  deps.logger.info("agent step skipped", { runId: msg.runId, round: msg.round, reason });
  return { status: "skipped", reason };
}
