import { modelFailure } from "./failure.ts";
import { type FetchLike, joinUrl, postTurn } from "./http.ts";
import { parseOpenAiResponse, toOpenAiBody } from "./openai-wire.ts";
import type { RetryOptions } from "./retry.ts";
import { type ApiKeySource, noApiKey } from "./secret-source.ts";
import type { ModelProvider } from "./types.ts";

export interface OpenAiCompatibleOptions {
  readonly name?: string;
  /** Up to and including the version segment, e.g. `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  /** Omit for servers that take no key; then no Authorization header is sent. */
  readonly apiKey?: ApiKeySource;
  readonly fetch?: FetchLike;
  /** Per attempt. Default 120 s (local models on CPUs are slow). */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
}

/** OpenAI-compatible chat completions: OpenAI itself, Ollama, vLLM, llama.cpp's server. */
export function openAiCompatibleModel(options: OpenAiCompatibleOptions): ModelProvider {
  const url = joinUrl(options.baseUrl, "/chat/completions");
  const fetchFn = options.fetch ?? fetch;
  const apiKey = options.apiKey ?? noApiKey;
  return {
    name: options.name ?? `openai-compatible:${options.model}`,
    capabilities: { supportsImages: false, supportsDocuments: false },
    async generate(request) {
      const key = await apiKey();
      if (!key.ok) return modelFailure(key.reason, key.detail);
      const secrets = key.key === undefined ? [] : [key.key];
      const headers: Record<string, string> =
        key.key === undefined ? {} : { authorization: `Bearer ${key.key}` };
      const body = toOpenAiBody(options.model, request);
      return postTurn({
        fetch: fetchFn,
        url,
        headers,
        body,
        timeoutMs: options.timeoutMs ?? 120_000,
        signal: request.signal,
        secrets,
        retry: options.retry,
        parse: parseOpenAiResponse,
      });
    },
  };
}
