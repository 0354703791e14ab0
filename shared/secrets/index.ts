/**
 * Secrets (docs/secrets.md): one reference syntax, one store per place (Secrets Manager in AWS, the 0600 file
 * locally), one cache. Model keys, MCP credentials and webhook signing secrets all read through it.
 */
export { awsSecretsStore } from "./aws-store.ts";
export { SECRET_CACHE_TTL_MS, type SecretCache, secretCache } from "./cache.ts";
export { cachedSecretsStore } from "./cached-store.ts";
export { fileSecretsStore } from "./file-store.ts";
export {
  isSecretName,
  parseSecretReference,
  SECRET_NAMESPACE,
  SECRET_PREFIX,
  type SecretReference,
  type SecretReferenceReason,
} from "./reference.ts";
export { secretReader } from "./resolve.ts";
export type { SecretEntry, SecretsStore } from "./store.ts";
