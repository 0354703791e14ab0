import { parseAnthropicResponse, toAnthropicBody } from "./anthropic-wire.ts";
import { modelFailure } from "./failure.ts";
import { type FetchLike, joinUrl, postTurn } from "./http.ts";
import { modelFacts } from "./model-facts.ts";
import type { RetryOptions } from "./retry.ts";
import type { ApiKeySource } from "./secret-source.ts";
import type { ModelProvider } from "./types.ts";

export const ANTHROPIC_VERSION = "2023-06-01";

export interface AnthropicOptions {
  readonly name?: string;
  /** Default `https://api.anthropic.com`; the adapter appends `/v1/messages`. */
  readonly baseUrl?: string;
  readonly model: string;
  readonly apiKey: ApiKeySource;
  readonly fetch?: FetchLike;
  /** Per attempt. Default 120 s. */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
}

/** The Anthropic Messages API. 529 (overloaded) and 429 are throttling, retried with backoff. */
export function anthropicModel(options: AnthropicOptions): ModelProvider {
  const url = joinUrl(options.baseUrl ?? "https://api.anthropic.com", "/v1/messages");
  const fetchFn = options.fetch ?? fetch;
  const facts = modelFacts("anthropic", options.model);
  return {
    name: options.name ?? `anthropic:${options.model}`,
    capabilities: { supportsImages: true, supportsDocuments: true },
    async generate(request) {
      const key = await options.apiKey();
      if (!key.ok) return modelFailure(key.reason, key.detail);
      if (key.key === undefined) return modelFailure("model-config", "the Anthropic API needs a key");
      const secrets = [key.key];
      const headers = { "x-api-key": key.key, "anthropic-version": ANTHROPIC_VERSION };
      const body = toAnthropicBody(options.model, request, facts);
      return postTurn({
        fetch: fetchFn,
        url,
        headers,
        body,
        timeoutMs: options.timeoutMs ?? 120_000,
        signal: request.signal,
        secrets,
        retry: options.retry,
        parse: parseAnthropicResponse,
      });
    },
  };
}
