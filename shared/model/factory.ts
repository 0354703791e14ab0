import { isAbsolute, resolve } from "node:path";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import type { ModelEntry } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import type { SecretSource } from "../secrets/index.ts";
import { anthropicModel } from "./anthropic.ts";
import { bedrockModel } from "./bedrock.ts";
import type { FetchLike } from "./http.ts";
import { openAiCompatibleModel } from "./openai-compatible.ts";
import type { RetryOptions } from "./retry.ts";
import { loadScript } from "./script.ts";
import { scriptedModel } from "./scripted.ts";
import { apiKeyFrom } from "./secret-source.ts";
import type { ModelProvider } from "./types.ts";

export interface ModelDeps {
  /** The config file's directory: a scripted model's `script` path is relative to it. */
  readonly baseDir: string;
  readonly secrets: SecretSource;
  readonly fetch?: FetchLike;
  /** Default: a client for the entry's region with `maxAttempts: 1` (the adapter owns retries). */
  readonly bedrockClient?: Pick<BedrockRuntimeClient, "send">;
  readonly retry?: RetryOptions;
  /** Per attempt, for every HTTP provider. Default 120 s. */
  readonly timeoutMs?: number;
}

/**
 * Build the provider for one catalog entry. Throws on misconfiguration that is visible now (an unreadable or
 * invalid script, an Anthropic entry without a key reference); a key that cannot be read at call time is a
 * `model-config` failure of that call instead, so it lands in the run's trace.
 */
export function createModel(entry: ModelEntry, deps: ModelDeps): ModelProvider {
  const common = {
    name: entry.id,
    ...(deps.retry ? { retry: deps.retry } : {}),
    ...(deps.timeoutMs !== undefined ? { timeoutMs: deps.timeoutMs } : {}),
  };
  switch (entry.provider) {
    case "scripted": {
      const path = isAbsolute(entry.script) ? entry.script : resolve(deps.baseDir, entry.script);
      return scriptedModel(loadScript(path), entry.id);
    }
    case "openai-compatible": {
      const keyed = entry.apiKeyEnv !== undefined || entry.apiKeySecret !== undefined;
      return openAiCompatibleModel({
        ...common,
        baseUrl: entry.baseUrl,
        model: entry.model,
        ...(keyed
          ? { apiKey: apiKeyFrom({ env: entry.apiKeyEnv, secret: entry.apiKeySecret }, deps.secrets) }
          : {}),
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
      });
    }
    case "anthropic": {
      if (entry.apiKeyEnv === undefined && entry.apiKeySecret === undefined)
        throw new PosternError(
          "misconfigured",
          `model ${entry.id}: the anthropic provider needs "apiKeySecret" or "apiKeyEnv"`,
        );
      return anthropicModel({
        ...common,
        baseUrl: entry.baseUrl,
        model: entry.model,
        apiKey: apiKeyFrom({ env: entry.apiKeyEnv, secret: entry.apiKeySecret }, deps.secrets),
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
      });
    }
    case "bedrock":
      return bedrockModel({
        ...common,
        modelId: entry.modelId,
        client:
          deps.bedrockClient ??
          new BedrockRuntimeClient({ maxAttempts: 1, ...(entry.region ? { region: entry.region } : {}) }),
      });
  }
}
