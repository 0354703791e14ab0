import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { SSMClient } from "@aws-sdk/client-ssm";
import { awsSecretsStore } from "./aws-store.ts";
import { secretCache } from "./cache.ts";
import { SECRET_PREFIX } from "./reference.ts";
import { noteEnvReference } from "./resolve.ts";
import type { SecretRef, SecretSource } from "./source.ts";

export interface AwsSecretSourceOptions {
  readonly secretsManager?: Pick<SecretsManagerClient, "send">;
  readonly ssm?: Pick<SSMClient, "send">;
  /** For `env` references (and `secret`-less refs). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How long a fetched value is reused; rotation is picked up after it. Default: the one secrets cache's TTL. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

/**
 * Reads `apiKeySecret` references: `secretsmanager:<name>` or a Secrets Manager ARN (the SecretString, whole), through
 * the one Secrets Manager adapter (shared/secrets), and `ssm:/<parameter>` (decrypted SecureString). A `secret`
 * reference wins over `env` when both are given. Values go through the one secrets cache per warm Lambda; a failed
 * read is not cached. Not found resolves to undefined; any other AWS error rejects (the caller reports its name only).
 */
export function awsSecretSource(options: AwsSecretSourceOptions = {}): SecretSource {
  const env = options.env ?? process.env;
  const cache = secretCache({
    ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const store = awsSecretsStore(options.secretsManager ? { client: options.secretsManager } : {});
  let ssm = options.ssm;

  async function fetchSecret(ref: string): Promise<string | null> {
    if (ref.startsWith("ssm:")) {
      // SSM loads on the first ssm: read (a chunk of the bundle), not at every cold start of agent-step.
      const { GetParameterCommand, SSMClient } = await import("@aws-sdk/client-ssm");
      ssm ??= new SSMClient({});
      try {
        const out = await ssm.send(new GetParameterCommand({ Name: ref.slice(4), WithDecryption: true }));
        return out.Parameter?.Value ?? null;
      } catch (err) {
        if ((err as { name?: unknown }).name === "ParameterNotFound") return null;
        throw err;
      }
    }
    return store.get(ref.startsWith(SECRET_PREFIX) ? ref.slice(SECRET_PREFIX.length) : ref);
  }

  return {
    async get(ref: SecretRef) {
      if (ref.secret === undefined) {
        if (ref.env === undefined) return undefined;
        noteEnvReference(ref.env);
        const value = env[ref.env];
        return value === "" ? undefined : value;
      }
      const secret = ref.secret;
      return (await cache.get(secret, () => fetchSecret(secret))) ?? undefined;
    },
  };
}
