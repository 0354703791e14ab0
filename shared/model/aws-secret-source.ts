import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { SSMClient } from "@aws-sdk/client-ssm";
import type { SecretRef, SecretSource } from "./secret-source.ts";

export interface AwsSecretSourceOptions {
  readonly secretsManager?: Pick<SecretsManagerClient, "send">;
  readonly ssm?: Pick<SSMClient, "send">;
  /** For `env` references (and `secret`-less refs). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How long a fetched value is reused; rotation is picked up after it. Default 5 minutes. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

/**
 * Reads `apiKeySecret` references: `secretsmanager:<name>` or a Secrets Manager ARN (the SecretString, whole), and
 * `ssm:/<parameter>` (decrypted SecureString). A `secret` reference wins over `env` when both are given. Values
 * are cached per warm Lambda so each model call does not pay a Secrets Manager round trip; a failed read is not
 * cached. Not found resolves to undefined; any other AWS error rejects (the caller reports its name only).
 */
export function awsSecretSource(options: AwsSecretSourceOptions = {}): SecretSource {
  const env = options.env ?? process.env;
  const ttl = options.ttlMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  let secretsManager = options.secretsManager;
  let ssm = options.ssm;
  const cache = new Map<string, { value: Promise<string | undefined>; expires: number }>();

  // The two SDK clients load on the first secret read (a dynamic import: a chunk of the bundle), not at every cold
  // start of agent-step, where a run with an env-var key or a local model never reads one.
  async function fetchSecret(ref: string): Promise<string | undefined> {
    if (ref.startsWith("ssm:")) {
      const { GetParameterCommand, SSMClient } = await import("@aws-sdk/client-ssm");
      ssm ??= new SSMClient({});
      try {
        const out = await ssm.send(new GetParameterCommand({ Name: ref.slice(4), WithDecryption: true }));
        return out.Parameter?.Value;
      } catch (err) {
        if ((err as { name?: unknown }).name === "ParameterNotFound") return undefined;
        throw err;
      }
    }
    const secretId = ref.startsWith("secretsmanager:") ? ref.slice("secretsmanager:".length) : ref;
    const { GetSecretValueCommand, SecretsManagerClient } = await import("@aws-sdk/client-secrets-manager");
    secretsManager ??= new SecretsManagerClient({});
    try {
      const out = await secretsManager.send(new GetSecretValueCommand({ SecretId: secretId }));
      return out.SecretString;
    } catch (err) {
      if ((err as { name?: unknown }).name === "ResourceNotFoundException") return undefined;
      throw err;
    }
  }

  return {
    async get(ref: SecretRef) {
      if (ref.secret === undefined) {
        if (ref.env === undefined) return undefined;
        const value = env[ref.env];
        return value === "" ? undefined : value;
      }
      const hit = cache.get(ref.secret);
      if (hit && hit.expires > now()) return hit.value;
      const value = fetchSecret(ref.secret);
      cache.set(ref.secret, { value, expires: now() + ttl });
      value.catch(() => cache.delete(ref.secret as string));
      return value;
    },
  };
}
