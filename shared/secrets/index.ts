/**
 * Secrets (docs/secrets.md): one reference syntax, one store per place (Secrets Manager in AWS, the 0600 file
 * locally), one cache. Model keys, MCP credentials and webhook signing secrets all read through it.
 */
export { awsSecretSource } from "./aws-source.ts";
export { awsSecretsStore } from "./aws-store.ts";
export { secretCache } from "./cache.ts";
export { cachedSecretsStore } from "./cached-store.ts";
export { fileSecretsStore } from "./file-store.ts";
export { isSecretName, parseSecretReference } from "./reference.ts";
export { envSecretSource, type SecretRef, type SecretSource } from "./source.ts";
export type { SecretsStore } from "./store.ts";
