import { fileSecretsStore } from "../secrets/index.ts";
import { endpointSecretStore } from "./secret-manager-store.ts";
import type { SecretStore } from "./secrets.ts";

/**
 * The local stack's webhook signing secrets: the one local secrets file (`.postern/secrets.json`, 0600), under the
 * same names as in Secrets Manager (`postern/webhooks/<endpoint id>`).
 */
export function fileSecretStore(path: string): SecretStore {
  return endpointSecretStore(fileSecretsStore(path));
}
