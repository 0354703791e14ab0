import type {
  ContentBlock,
  ConverseCommandInput,
  ConverseCommandOutput,
  Message as ConverseMessage,
  ToolResultContentBlock,
  ToolUseBlock,
} from "@aws-sdk/client-bedrock-runtime";
import { assistantText, isPlainObject, mediaPlaceholder, replayInput, toolResultText } from "./content.ts";
import type { ModelFacts } from "./model-facts.ts";
import { cachePlan } from "./prompt-cache.ts";
import type { MediaBlock, Message, ModelCapabilities, ModelRequest, StopReason, ToolCall } from "./types.ts";
import { malformed, type ParsedTurn } from "./wire.ts";

/** The SDK's JSON document type, taken from the SDK itself rather than its transitive `@smithy/types`. */
type DocumentType = NonNullable<ToolUseBlock["input"]>;

export interface ConverseMapping {
  readonly capabilities: ModelCapabilities;
  /** `status` on toolResult is honoured by Claude models only; others get an `ERROR: ` prefix instead. */
  readonly toolResultStatus: boolean;
  /**
   * The model's prompt-cache facts (model-facts.ts), or null for none. A `cachePoint` in a field the model does
   * not take (Nova: `toolConfig.tools`), or sent to a model without prompt caching, is refused with a
   * ValidationException, so only the fields the facts name get one, and only past the model's minimum.
   */
  readonly promptCache: Pick<ModelFacts, "cacheFields" | "minCacheTokens" | "toolPromptTokens"> | null;
}

/** Bedrock's prompt-cache checkpoint: the prefix up to it is cached (five minutes by default). */
const CACHE_POINT = { cachePoint: { type: "default" as const } };

/** Bedrock Converse input (`POST /model/{modelId}/converse`). */
export function toConverseInput(
  modelId: string,
  request: ModelRequest,
  mapping: ConverseMapping,
): ConverseCommandInput {
  const messages = mergeRoles(request.messages.map((m) => toConverseMessage(m, mapping)));
  const plan = cachePlan(request, mapping.promptCache);
  // The conversation's checkpoint once the run is past round 1 (prompt-cache.ts), after its last block.
  const last = messages.at(-1);
  if (plan.messages && last) last.content = [...(last.content ?? []), CACHE_POINT];
  const input: ConverseCommandInput = {
    modelId,
    messages,
    inferenceConfig: { maxTokens: request.maxTokens },
  };
  // Converse rejects blank text blocks, the system prompt included. The prefix that never changes between runs
  // (tools, then system) is checkpointed after each, where the model takes it.
  if (request.system !== "") input.system = [{ text: request.system }, ...(plan.system ? [CACHE_POINT] : [])];
  if (request.tools.length > 0) {
    input.toolConfig = {
      tools: [
        ...request.tools.map((t) => ({
          toolSpec: {
            name: t.name,
            description: t.description,
            inputSchema: { json: t.inputSchema as DocumentType },
          },
        })),
        ...(plan.tools ? [CACHE_POINT] : []),
      ],
    };
  }
  return input;
}

function toConverseMessage(m: Message, mapping: ConverseMapping): ConverseMessage {
  if (m.role === "user") {
    const texts = m.content.filter((b) => b.text !== "");
    return {
      role: "user",
      content: texts.length > 0 ? texts.map((b) => ({ text: b.text })) : [{ text: "(empty)" }],
    };
  }
  if (m.role === "assistant") {
    const text = assistantText(m);
    const content: ContentBlock[] = text === undefined ? [] : [{ text }];
    for (const c of m.toolCalls) {
      content.push({ toolUse: { toolUseId: c.id, name: c.name, input: replayInput(c) as DocumentType } });
    }
    return { role: "assistant", content };
  }
  return {
    role: "user",
    content: m.results.map((r) => {
      const text = toolResultText(r);
      const blocks: ToolResultContentBlock[] = [
        { text: r.isError && !mapping.toolResultStatus ? `ERROR: ${text}` : text },
        ...(r.attachments ?? []).map((b) => mediaBlock(b, mapping.capabilities)),
      ];
      return {
        toolResult: {
          toolUseId: r.toolCallId,
          content: blocks,
          ...(mapping.toolResultStatus
            ? { status: r.isError ? ("error" as const) : ("success" as const) }
            : {}),
        },
      };
    }),
  };
}

const IMAGE_FORMAT = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
} as const;
const DOCUMENT_FORMAT = { "application/pdf": "pdf", "text/plain": "txt" } as const;

function mediaBlock(b: MediaBlock, caps: ModelCapabilities): ToolResultContentBlock {
  const bytes = new Uint8Array(Buffer.from(b.data, "base64"));
  if (b.type === "image") {
    if (!caps.supportsImages) return { text: mediaPlaceholder(b) };
    return { image: { format: IMAGE_FORMAT[b.mediaType], source: { bytes } } };
  }
  if (!caps.supportsDocuments) return { text: mediaPlaceholder(b) };
  return {
    document: { format: DOCUMENT_FORMAT[b.mediaType], name: documentName(b.name), source: { bytes } },
  };
}

/**
 * Converse allows only alphanumerics, single spaces, hyphens, parentheses and square brackets in a document name;
 * the name is also model-visible text, so anything else is dropped rather than passed through.
 */
export function documentName(name: string): string {
  const clean = name
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, "-")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200);
  return clean === "" ? "document" : clean;
}

/** Converse requires alternating roles: tool results and a following user text share one user turn. */
function mergeRoles(messages: ConverseMessage[]): ConverseMessage[] {
  const out: ConverseMessage[] = [];
  for (const m of messages) {
    const last = out.at(-1);
    if (last !== undefined && last.role === m.role)
      last.content = [...(last.content ?? []), ...(m.content ?? [])];
    else out.push({ role: m.role, content: [...(m.content ?? [])] });
  }
  return out;
}

export function parseConverseOutput(output: ConverseCommandOutput): ParsedTurn {
  const message = output.output?.message;
  if (message === undefined || !Array.isArray(message.content))
    return malformed("unexpected response shape: output.message.content is missing");
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const [i, block] of message.content.entries()) {
    if (typeof block.text === "string") texts.push(block.text);
    else if (block.toolUse !== undefined) {
      const { toolUseId, name, input } = block.toolUse;
      if (typeof toolUseId !== "string" || typeof name !== "string" || name === "")
        return malformed(`content.${i}.toolUse: toolUseId and name are required`);
      toolCalls.push(
        isPlainObject(input)
          ? { id: toolUseId, name, input }
          : {
              id: toolUseId,
              name,
              input: undefined,
              malformedInput: { raw: JSON.stringify(input) ?? "", error: "input is not a JSON object" },
            },
      );
    }
  }
  return {
    ok: true,
    turn: {
      text: texts.join(""),
      toolCalls,
      stopReason: stopReason(output.stopReason, toolCalls.length),
      // Bedrock reports cache reads and writes apart from inputTokens (TokenUsage: totalTokens sums all four).
      usage: {
        inputTokens: output.usage?.inputTokens ?? 0,
        outputTokens: output.usage?.outputTokens ?? 0,
        ...(output.usage?.cacheReadInputTokens ? { cacheReadTokens: output.usage.cacheReadInputTokens } : {}),
        ...(output.usage?.cacheWriteInputTokens
          ? { cacheWriteTokens: output.usage.cacheWriteInputTokens }
          : {}),
      },
    },
  };
}

/** `malformed_tool_use`, `guardrail_intervened`, `content_filtered` and the like are `other`. */
function stopReason(reason: string | undefined, calls: number): StopReason {
  if (reason === "max_tokens") return "max_tokens";
  if (calls > 0) return "tool_use";
  if (reason === "end_turn" || reason === "stop_sequence") return "end";
  return "other";
}
