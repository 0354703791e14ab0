import { modelFailure } from "./failure.ts";
import type { ModelScript, ScriptTurn } from "./script.ts";
import type { ModelProvider, ModelRequest, ModelResult, ToolCall } from "./types.ts";

/**
 * Replays a script of turns. The turn is chosen by the number of assistant messages already in
 * `request.messages` (turn 0 for a fresh run): the agent loop is stateless across Lambda invocations and reloads
 * the transcript each round, so the same transcript always yields the same turn, even on a redelivered round.
 * Tool call ids are `call_<turn>_<index>`, equally deterministic. Asking past the end is a `script-exhausted`
 * failure (not an empty turn), so a loop that keeps going after the script ended shows up in the trace.
 */
export function scriptedModel(script: ModelScript, name = "scripted"): ModelProvider {
  return {
    name,
    capabilities: { supportsImages: true, supportsDocuments: true },
    async generate(request) {
      return replay(script, request);
    },
  };
}

export function scriptTurnIndex(request: ModelRequest): number {
  return request.messages.filter((m) => m.role === "assistant").length;
}

function replay(script: ModelScript, request: ModelRequest): ModelResult {
  const index = scriptTurnIndex(request);
  const scripted = script.turns[index];
  if (scripted === undefined) {
    return modelFailure(
      "script-exhausted",
      `the script has ${script.turns.length} turn(s); turn ${index} was requested (${index} assistant turns in the transcript)`,
    );
  }
  const turn = chosenCase(scripted, request) ?? scripted;
  if (turn.fail) return modelFailure(turn.fail.reason, turn.fail.detail, { retryable: turn.fail.retryable });
  const toolCalls = turn.toolCalls.map((c, i): ToolCall => {
    const id = c.id ?? `call_${index}_${i}`;
    if (c.malformedInput !== undefined)
      return {
        id,
        name: c.name,
        input: undefined,
        malformedInput: { raw: c.malformedInput, error: "scripted malformed input" },
      };
    return { id, name: c.name, input: c.input ?? {} };
  });
  return {
    ok: true,
    turn: {
      text: turn.text,
      toolCalls,
      stopReason: turn.stopReason ?? (toolCalls.length > 0 ? "tool_use" : "end"),
      usage: turn.usage ?? estimateUsage(request, turn),
    },
  };
}

/** The case of a turn that the last user turn's first text starts with (script.ts `cases`), if any. */
function chosenCase(turn: ModelScript["turns"][number], request: ModelRequest): ScriptTurn | undefined {
  if (!turn.cases) return undefined;
  const last = request.messages.at(-1);
  const text = last?.role === "user" ? (last.content[0]?.text ?? "") : "";
  return turn.cases.find((c) => text.startsWith(c.whenLastTurnStartsWith))?.turn;
}

function estimateUsage(
  request: ModelRequest,
  turn: ScriptTurn,
): { inputTokens: number; outputTokens: number } {
  const input = JSON.stringify({ s: request.system, m: request.messages, t: request.tools }).length;
  const output = turn.text.length + JSON.stringify(turn.toolCalls).length;
  return { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(output / 4) };
}
