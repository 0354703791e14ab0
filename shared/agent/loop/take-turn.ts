import type { AssistantMessage } from "../../model/index.ts";
import type { Transcript } from "../ports.ts";
import { traceCallId } from "./dispatch.ts";
import { finishStep } from "./finish-step.ts";
import { lastAssistant, type Start } from "./load-or-start.ts";
import type { Round, StepOutcome } from "./round.ts";
import { toolsForRun } from "./toolkits.ts";

/**
 * This round's model turn. The transcript decides: if this round's turn is saved, the model was called; never call
 * it twice. Otherwise the budgets are checked before inference (G10) and the turn is saved before any tool runs.
 */
export async function takeTurn(
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
    return finishStep(r, "budget-exceeded", budget.reason);
  }
  const model = deps.model(agent.model);
  if (!model) return finishStep(r, "failed", "model-unknown");
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
    return finishStep(r, "failed", result.reason, result.detail);
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
export async function saveTranscript(r: Round, start: Start, transcript: Transcript): Promise<void> {
  await r.deps.transcripts.save(r.run.runId, transcript);
  if (!start.stored) await r.deps.runs.noteTranscript(r.run.runId);
}
