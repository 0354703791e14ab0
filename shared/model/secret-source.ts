import { type FailWithDetail, fail, type Ok } from "../result.ts";
import type { SecretRef, SecretSource } from "../secrets/index.ts";

export type ApiKeyResult = Ok<{ readonly key: string | undefined }> | FailWithDetail<"model-config">;

/** Resolves the key for one call; failures name the reference, never a value. */
export type ApiKeySource = () => Promise<ApiKeyResult>;

/** No key configured: the server needs none (a local Ollama, vLLM or llama.cpp). */
export const noApiKey: ApiKeySource = async () => ({ ok: true, key: undefined });

export function apiKeyFrom(ref: SecretRef, secrets: SecretSource): ApiKeySource {
  const name = ref.secret !== undefined ? `secret ${ref.secret}` : `env var ${ref.env}`;
  return async () => {
    try {
      const key = await secrets.get(ref);
      if (key === undefined || key === "")
        return fail("model-config", `API key not found: ${name} is unset or empty`);
      return { ok: true, key };
    } catch (err) {
      // The error's name only: an SDK message could quote the request, and this string reaches traces.
      const kind = err instanceof Error ? err.name : "unknown error";
      return fail("model-config", `API key unavailable: reading ${name} failed (${kind})`);
    }
  };
}
