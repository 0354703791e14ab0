import { join } from "node:path";
import { envSecretSource, fileSecretsStore, type SecretSource } from "../../shared/secrets/index.ts";

/** The local stack's secrets file (docs/secrets.md): `postern secrets set` and `postern webhooks add` write it (G16). */
export function localSecretsFile(stackDir: string): string {
  return join(stackDir, "secrets.json");
}

/**
 * Model keys and MCP credentials as the local stack reads them: `secretsmanager:postern/...` from its secrets file,
 * then the deprecated env-var references. The stack, its console and `postern doctor` read the same way.
 */
export function localSecretSource(
  stackDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): SecretSource {
  return envSecretSource(env, fileSecretsStore(localSecretsFile(stackDir)));
}
