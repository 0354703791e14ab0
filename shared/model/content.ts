import type { AssistantMessage, MediaBlock, ToolCall, ToolResultPart } from "./types.ts";

/** JSON results travel as JSON text everywhere: every provider accepts text, not every model accepts JSON blocks. */
export function toolResultText(result: ToolResultPart): string {
  if (result.content.type === "text") return result.content.text;
  return JSON.stringify(result.content.value) ?? "null";
}

/** What a model that cannot take a block sees instead, so it knows something was there. */
export function mediaPlaceholder(block: MediaBlock): string {
  const what = block.type === "image" ? "image" : `document "${block.name}"`;
  return `[${what} (${block.mediaType}) omitted: this model does not accept ${block.type}s]`;
}

/** Providers reject empty assistant content; a turn with neither text nor calls still has to hold its place. */
export const EMPTY_ASSISTANT_TEXT = "(no response)";

export function assistantText(message: AssistantMessage): string | undefined {
  if (message.text !== "") return message.text;
  return message.toolCalls.length === 0 ? EMPTY_ASSISTANT_TEXT : undefined;
}

/** The object input to replay for a call: a malformed one is replayed as `{}` where the wire demands an object. */
export function replayInput(call: ToolCall): Record<string, unknown> {
  const input = call.input;
  return input !== null && typeof input === "object" && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
