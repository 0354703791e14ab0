import * as z from "zod";
import { assistantText, mediaPlaceholder, replayInput, toolResultText } from "./content.ts";
import type { Message, ModelRequest, StopReason, ToolCall, Usage } from "./types.ts";
import { describeIssues, malformed, type ParsedTurn } from "./wire.ts";

/**
 * OpenAI chat completions wire format (also spoken by Ollama, vLLM and llama.cpp's server). Images and documents
 * in tool results are not part of it (a `tool` message holds text), so they become text placeholders.
 */
export function toOpenAiBody(model: string, request: ModelRequest): Record<string, unknown> {
  const messages: unknown[] = [{ role: "system", content: request.system }];
  for (const m of request.messages) messages.push(...toOpenAiMessages(m));
  const body: Record<string, unknown> = { model, max_tokens: request.maxTokens, messages };
  // Several local servers reject an empty `tools` array, so it is left out when no tool is offered.
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
  }
  return body;
}

function toOpenAiMessages(m: Message): unknown[] {
  if (m.role === "user") return [{ role: "user", content: m.content.map((b) => b.text).join("\n\n") }];
  if (m.role === "assistant") {
    const out: Record<string, unknown> = { role: "assistant", content: assistantText(m) ?? null };
    if (m.toolCalls.length > 0) {
      out.tool_calls = m.toolCalls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.malformedInput?.raw ?? JSON.stringify(replayInput(c)) },
      }));
    }
    return [out];
  }
  return m.results.map((r) => {
    const parts = [toolResultText(r), ...(r.attachments ?? []).map(mediaPlaceholder)];
    // The wire has no error flag for tool messages; the prefix is how the model learns the call failed.
    const text = parts.join("\n");
    return { role: "tool", tool_call_id: r.toolCallId, content: r.isError ? `ERROR: ${text}` : text };
  });
}

const toolCallWire = z.object({
  id: z.string().nullish(),
  function: z.object({
    name: z.string().min(1),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

const responseWire = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), tool_calls: z.array(toolCallWire).nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      // OpenAI caches a prompt prefix of 1,024 tokens or more by itself and reports the part it read here, as a
      // subset of prompt_tokens (OpenAI, "Prompt caching"); compatible servers may leave it out.
      prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});

export function parseOpenAiResponse(json: unknown): ParsedTurn {
  const parsed = responseWire.safeParse(json);
  if (!parsed.success) return malformed(`unexpected response shape: ${describeIssues(parsed.error)}`);
  const choice = parsed.data.choices[0];
  if (choice === undefined) return malformed("no choices");
  const toolCalls = (choice.message.tool_calls ?? []).map((c, i) => toToolCall(c, i));
  return {
    ok: true,
    turn: {
      text: choice.message.content ?? "",
      toolCalls,
      stopReason: stopReason(choice.finish_reason, toolCalls.length),
      usage: openAiUsage(parsed.data.usage),
    },
  };
}

function openAiUsage(u: z.infer<typeof responseWire>["usage"]): Usage {
  const prompt = u?.prompt_tokens ?? 0;
  // Never more than the prompt: a server that reports nonsense must not make the uncached count negative.
  const cached = Math.min(prompt, Math.max(0, u?.prompt_tokens_details?.cached_tokens ?? 0));
  return {
    inputTokens: prompt - cached,
    outputTokens: u?.completion_tokens ?? 0,
    ...(cached > 0 ? { cacheReadTokens: cached } : {}),
  };
}

function toToolCall(c: z.infer<typeof toolCallWire>, index: number): ToolCall {
  // Some local servers omit the id; the transcript needs one to pair the result with the call.
  const id = c.id ?? `call_${index}`;
  const args = c.function.arguments;
  if (args === null || args === undefined) return { id, name: c.function.name, input: {} };
  if (typeof args !== "string") return { id, name: c.function.name, input: args };
  if (args.trim() === "") return { id, name: c.function.name, input: {} };
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch (err) {
    return {
      id,
      name: c.function.name,
      input: undefined,
      malformedInput: { raw: args, error: (err as Error).message },
    };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return {
      id,
      name: c.function.name,
      input: undefined,
      malformedInput: { raw: args, error: "arguments are not a JSON object" },
    };
  return { id, name: c.function.name, input: value };
}

/**
 * Ollama reports `stop` even when it returned tool calls, so any tool call makes the turn `tool_use` unless the
 * output was cut off.
 */
function stopReason(finish: string | null | undefined, calls: number): StopReason {
  if (finish === "length") return "max_tokens";
  if (calls > 0) return "tool_use";
  if (finish === "stop") return "end";
  return "other";
}
