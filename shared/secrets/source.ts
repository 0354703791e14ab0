import { SECRET_PREFIX } from "./reference.ts";
import { noteEnvReference } from "./resolve.ts";
import type { SecretsStore } from "./store.ts";

/**
 * Where model API keys and MCP credentials come from (G16): an env var named by the catalog entry's `apiKeyEnv`, or a Secrets
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
