import type { AssistantMessage, ToolResultPart } from "../../model/index.ts";
import { type ToolResult, toolFailure } from "../../tool-framework/index.ts";
import type { Transcript } from "../ports.ts";
import { dispatchToolCall, traceCallId } from "./dispatch.ts";
import type { Round } from "./round.ts";
import { toModelToolResult } from "./tool-result.ts";

/** Calls answered with an error before the dispatcher sees them: too many in a turn, a repeated id, bad JSON. */
export type TurnRefusal = "tool-call-limit" | "tool-call-id-duplicate" | "tool-input-malformed";

/** More calls than this in one turn are answered with an error instead of being run (a runaway model). */
export const MAX_CALLS_PER_ROUND = 16;

/**
 * Run the turn's tool calls, unless a crashed delivery already saved their results (then null: nothing to add).
 * A resumed round answers again from the tool-result cache, so no tool runs twice.
 */
export async function answerTurn(
  r: Round,
  turn: AssistantMessage,
  transcript: Transcript,
): Promise<ToolResultPart[] | null> {
  // Resumed after the results were saved (a crash before the next round was enqueued): do not answer twice.
  const answered = transcript.lastRound === r.round && transcript.messages.at(-1)?.role === "tool";
  if (answered) return null;
  return runToolCalls(turn, r, transcript);
}

/** Answer every tool call of a turn: limits, duplicate and malformed ids, then the dispatcher's gates. */
export async function runToolCalls(
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

function errorResult(id: string, reason: TurnRefusal, detail: string): ToolResultPart {
  return toModelToolResult(id, toolFailure(reason, detail));
}
