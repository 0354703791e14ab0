import * as z from "zod";
import { assistantText, isPlainObject, replayInput, toolResultText } from "./content.ts";
import type { ModelFacts } from "./model-facts.ts";
import { cachePlan } from "./prompt-cache.ts";
import type { MediaBlock, Message, ModelRequest, StopReason, ToolCall, Usage } from "./types.ts";
import { describeIssues, malformed, type ParsedTurn } from "./wire.ts";

/** Anthropic's prompt-cache marker (the five-minute cache): the prefix up to and including its block is cached. */
const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * Anthropic Messages API (`anthropic-version: 2023-06-01`) request body. The API renders tools, then system, then
 * messages, so one `cache_control` on the system block caches tools and system together (on the last tool when
 * there is no system prompt); a second on the last block of the conversation once the run is past round 1
 * (prompt-cache.ts). Each only where the prefix up to it reaches the model's minimum (`facts`, model-facts.ts).
 */
export function toAnthropicBody(
  model: string,
  request: ModelRequest,
  facts: Pick<ModelFacts, "cacheFields" | "minCacheTokens" | "toolPromptTokens"> | null,
): Record<string, unknown> {
  const plan = cachePlan(request, facts);
  const messages = mergeRoles(request.messages.map(toAnthropicMessage));
  if (plan.messages) markLast(messages);
  const marked = plan.system || plan.tools;
  const body: Record<string, unknown> = {
    model,
    max_tokens: request.maxTokens,
    // A blank text block is refused by the API; a blank system prompt is left out instead of marked.
    ...(request.system === ""
      ? {}
      : {
          system: [{ type: "text", text: request.system, ...(marked ? { cache_control: EPHEMERAL } : {}) }],
        }),
    messages,
  };
  if (request.tools.length > 0) {
    const last = request.tools.length - 1;
    body.tools = request.tools.map((t, i) => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema,
      ...(plan.tools && request.system === "" && i === last ? { cache_control: EPHEMERAL } : {}),
    }));
  }
  return body;
}

interface WireMessage {
  role: "user" | "assistant";
  content: unknown[];
}

function toAnthropicMessage(m: Message): WireMessage {
  if (m.role === "user")
    return { role: "user", content: m.content.map((b) => ({ type: "text", text: b.text })) };
  if (m.role === "assistant") {
    const text = assistantText(m);
    return {
      role: "assistant",
      content: [
        ...(text === undefined ? [] : [{ type: "text", text }]),
        ...m.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: replayInput(c) })),
      ],
    };
  }
  return {
    role: "user",
    content: m.results.map((r) => ({
      type: "tool_result",
      tool_use_id: r.toolCallId,
      content: [{ type: "text", text: toolResultText(r) }, ...(r.attachments ?? []).map(mediaBlock)],
      is_error: r.isError,
    })),
  };
}

function mediaBlock(b: MediaBlock): unknown {
  if (b.type === "image")
    return { type: "image", source: { type: "base64", media_type: b.mediaType, data: b.data } };
  if (b.mediaType === "text/plain") {
    const text = Buffer.from(b.data, "base64").toString("utf8");
    return {
      type: "document",
      title: b.name,
      source: { type: "text", media_type: "text/plain", data: text },
    };
  }
  return {
    type: "document",
    title: b.name,
    source: { type: "base64", media_type: b.mediaType, data: b.data },
  };
}

/** `cache_control` on the last content block of the last message (a text, tool_use or tool_result block). */
function markLast(messages: WireMessage[]): void {
  const content = messages.at(-1)?.content;
  const last = content?.at(-1);
  if (content && isPlainObject(last)) content[content.length - 1] = { ...last, cache_control: EPHEMERAL };
}

/** The API requires user and assistant turns to alternate: tool results and a following user text share one turn. */
function mergeRoles(messages: WireMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const m of messages) {
    const last = out.at(-1);
    if (last?.role === m.role) last.content.push(...m.content);
    else out.push({ role: m.role, content: [...m.content] });
  }
  return out;
}

const responseWire = z.object({
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string().nullish(),
  usage: z.object({
    input_tokens: z.number(),
    output_tokens: z.number(),
    // Present when the request carried cache_control; input_tokens then counts only the tokens after the last
    // breakpoint (Anthropic, "Prompt caching": total input = cache_read + cache_creation + input_tokens).
    cache_creation_input_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
  }),
});
const textWire = z.object({ type: z.literal("text"), text: z.string() });
const toolUseWire = z.object({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string().min(1),
  input: z.unknown(),
});

export function parseAnthropicResponse(json: unknown): ParsedTurn {
  const parsed = responseWire.safeParse(json);
  if (!parsed.success) return malformed(`unexpected response shape: ${describeIssues(parsed.error)}`);
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const [i, block] of parsed.data.content.entries()) {
    if (block.type === "text") {
      const t = textWire.safeParse(block);
      if (!t.success) return malformed(`content.${i}: ${describeIssues(t.error)}`);
      texts.push(t.data.text);
    } else if (block.type === "tool_use") {
      const u = toolUseWire.safeParse(block);
      if (!u.success) return malformed(`content.${i}: ${describeIssues(u.error)}`);
      toolCalls.push(
        isPlainObject(u.data.input)
          ? { id: u.data.id, name: u.data.name, input: u.data.input }
          : {
              id: u.data.id,
              name: u.data.name,
              input: undefined,
              malformedInput: {
                raw: JSON.stringify(u.data.input) ?? "",
                error: "input is not a JSON object",
              },
            },
      );
    }
    // Other block kinds (thinking, server tools) carry nothing the loop acts on.
  }
  return {
    ok: true,
    turn: {
      text: texts.join(""),
      toolCalls,
      stopReason: stopReason(parsed.data.stop_reason, toolCalls.length),
      usage: anthropicUsage(parsed.data.usage),
    },
  };
}

function anthropicUsage(u: z.infer<typeof responseWire>["usage"]): Usage {
  return {
    inputTokens: u.input_tokens,
    outputTokens: u.output_tokens,
    ...(u.cache_read_input_tokens ? { cacheReadTokens: u.cache_read_input_tokens } : {}),
    ...(u.cache_creation_input_tokens ? { cacheWriteTokens: u.cache_creation_input_tokens } : {}),
  };
}

function stopReason(reason: string | null | undefined, calls: number): StopReason {
  if (reason === "max_tokens") return "max_tokens";
  if (calls > 0) return "tool_use";
  if (reason === "end_turn" || reason === "stop_sequence") return "end";
  return "other";
}
