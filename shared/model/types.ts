/**
 * Provider-neutral conversation and result types. Every adapter (scripted, OpenAI-compatible, Anthropic, Bedrock)
 * maps these to and from its own wire format, so the agent loop never sees a provider's shapes.
 */

import type { FailWithDetail, Ok } from "../result.ts";

/** A tool the model may call. `inputSchema` is a JSON Schema object (e.g. from `z.toJSONSchema`). */
export interface ToolDeclaration {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/**
 * A tool call the model asked for. When the provider sent arguments that are not a JSON object (OpenAI-compatible
 * servers send `arguments` as a string and small local models often get it wrong), `input` is `undefined` and
 * `malformedInput` holds the raw text and the parse error: the dispatcher must answer with an error tool result
 * (the model can try again), never run the tool. A malformed argument string is the model's mistake, not a
 * transport failure, so it does not fail the whole turn.
 */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  readonly malformedInput?: { readonly raw: string; readonly error: string };
}

export interface TextBlock {
  readonly type: "text";
  readonly text: string;
}

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";
export type DocumentMediaType = "application/pdf" | "text/plain";

/** Base64 image. Sent only to adapters whose `capabilities.supportsImages` is true; others get a text note. */
export interface ImageBlock {
  readonly type: "image";
  readonly mediaType: ImageMediaType;
  readonly data: string;
}

/** Base64 document. Sent only where `capabilities.supportsDocuments`; others get a text note. */
export interface DocumentBlock {
  readonly type: "document";
  readonly mediaType: DocumentMediaType;
  readonly data: string;
  readonly name: string;
}

export type MediaBlock = ImageBlock | DocumentBlock;

/** A tool result's main content: text, or JSON (serialised as JSON text on every provider). */
export type ToolResultContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "json"; readonly value: unknown };

export interface ToolResultPart {
  readonly toolCallId: string;
  readonly content: ToolResultContent;
  readonly isError: boolean;
  readonly attachments?: readonly MediaBlock[];
}

export interface UserMessage {
  readonly role: "user";
  readonly content: readonly TextBlock[];
}

export interface AssistantMessage {
  readonly role: "assistant";
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
}

/** The results of one assistant turn's tool calls, in one message (Anthropic and Bedrock require them together). */
export interface ToolResultsMessage {
  readonly role: "tool";
  readonly results: readonly ToolResultPart[];
}

export type Message = UserMessage | AssistantMessage | ToolResultsMessage;

export interface ModelRequest {
  readonly system: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDeclaration[];
  readonly maxTokens: number;
  /** Aborts the call (e.g. Lambda's remaining time); reported as `model-timeout`. */
  readonly signal?: AbortSignal;
}

export type StopReason = "end" | "tool_use" | "max_tokens" | "other";

/**
 * Tokens of one model call, as the provider billed them. `inputTokens` are input tokens at the full input price:
 * neither read from nor written to a prompt cache (providers report those apart: Anthropic and Bedrock already
 * exclude them from their input count; OpenAI's `prompt_tokens` includes its `cached_tokens`, which the adapter
 * subtracts). A cache read is billed at a fraction of the input price, a cache write at a premium (shared/model/
 * prompt-cache.ts).
 */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache (Anthropic, Bedrock; OpenAI writes at no extra charge). */
  readonly cacheWriteTokens?: number;
}

/** Every token the call processed: what budgets count (a cached token is cheaper, but it is still work). */
export function tokensProcessed(u: Usage): number {
  return Math.max(0, u.inputTokens + u.outputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0));
}

export interface ModelTurn {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly stopReason: StopReason;
  readonly usage: Usage;
}

/**
 * Stable failure codes (recorded in traces; never renamed):
 * - `model-throttled`: 429, Anthropic 529 overloaded, 503, Bedrock ThrottlingException/ServiceUnavailable/ModelNotReady
 *   (returned after the bounded retries are spent)
 * - `model-http-error`: any other non-2xx / service error (5xx retryable, 4xx not)
 * - `model-auth`: 401/403, Bedrock AccessDenied / bad credentials
 * - `model-timeout`: our timeout or the caller's signal fired, HTTP 408, Bedrock ModelTimeoutException
 * - `model-network`: connection refused/reset, DNS failure
 * - `model-malformed-response`: 2xx whose body is not the provider's documented shape
 * - `model-config`: the key could not be obtained (missing env var or secret); names the reference, never a value
 * - `script-exhausted`: the scripted provider was asked for a turn past the end of its script
 * (A script may also replay any of these codes on purpose, for drills.)
 */
export const MODEL_FAILURE_REASONS = [
  "model-throttled",
  "model-http-error",
  "model-auth",
  "model-timeout",
  "model-network",
  "model-malformed-response",
  "model-config",
  "script-exhausted",
] as const;
export type ModelFailureReason = (typeof MODEL_FAILURE_REASONS)[number];

/**
 * `detail`: human-readable, secret-free (keys are redacted), at most ~1 KB. `retryable`: the same request may
 * succeed later (the loop may let the queue redeliver); computed once, by `modelFailure` (failure.ts).
 */
export type ModelFailure = FailWithDetail<ModelFailureReason, { readonly retryable: boolean }>;

export type ModelResult = Ok<{ readonly turn: ModelTurn }> | ModelFailure;

export interface ModelCapabilities {
  readonly supportsImages: boolean;
  readonly supportsDocuments: boolean;
}

export interface ModelProvider {
  /** The catalog id or adapter name, for traces. */
  readonly name: string;
  readonly capabilities: ModelCapabilities;
  /** Never throws for provider errors; only programmer bugs throw. */
  generate(request: ModelRequest): Promise<ModelResult>;
}
