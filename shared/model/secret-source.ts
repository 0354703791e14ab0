import { type FailWithDetail, fail, type Ok } from "../result.ts";
import { noteEnvReference, SECRET_PREFIX, type SecretsStore } from "../secrets/index.ts";

/**
 * Where model API keys come from (G16): an env var named by the catalog entry's `apiKeyEnv`, or a Secrets
 * Manager / SSM reference in `apiKeySecret`. The admin tables never hold keys.
 */
export interface SecretRef {
  readonly env?: string | undefined;
  readonly secret?: string | undefined;
}

export interface SecretSource {
  /** The value, or `undefined` when the reference names nothing. May reject on an AWS error. */
  get(ref: SecretRef): Promise<string | undefined>;
}

/**
 * The local stack's source: `secret` references (`secretsmanager:postern/...`) from the local secrets store
 * (`.postern/secrets.json`, written by `postern secrets set`) when one is given, else unresolved; `env` references
 * from env vars (deprecated: one line per variable names the command that moves it into the store).
 */
export function envSecretSource(
  env: Readonly<Record<string, string | undefined>> = process.env,
  store?: Pick<SecretsStore, "get">,
): SecretSource {
  return {
    async get(ref) {
      if (ref.secret !== undefined) {
        if (store === undefined || !ref.secret.startsWith(SECRET_PREFIX)) return undefined;
        return (await store.get(ref.secret.slice(SECRET_PREFIX.length))) ?? undefined;
      }
      if (ref.env === undefined) return undefined;
      noteEnvReference(ref.env);
      const value = env[ref.env];
      return value === undefined || value === "" ? undefined : value;
    },
  };
}

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
