import type { AssistantMessage, ToolResultPart } from "../../model/index.ts";
import type { Round } from "./round.ts";

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
