import { WEBHOOK_SECRET_PREFIX } from "../ports/index.ts";
import { cachedSecretsStore, type SecretsStore, secretCache } from "../secrets/index.ts";
import type { EndpointSecrets, SecretStore } from "./secrets.ts";

/** Secrets Manager names: the worker's grant is `secret:postern/webhooks/*` (infra/constructs/webhooks.ts). */
export const webhookSecretName = (endpointId: string): string => `${WEBHOOK_SECRET_PREFIX}${endpointId}`;

/** Endpoint secrets as JSON, one secret per endpoint, in the one secrets store (no cache of its own). */
export function endpointSecretStore(store: SecretsStore): SecretStore {
  return {
    async read(id) {
      const text = await store.get(webhookSecretName(id));
      return text ? (JSON.parse(text) as EndpointSecrets) : null;
    },
    async write(id, secrets) {
      await store.set(webhookSecretName(id), JSON.stringify(secrets));
    },
    async remove(id) {
      await store.remove(webhookSecretName(id));
    },
  };
}

/**
 * Webhook signing secrets in Secrets Manager. The worker only reads, and keeps a read for `ttlMs` through the one
 * secrets cache (a rotation reaches it within that; the overlap is hours); the CLI and console write.
 */
export function secretManagerStore(
  api: SecretsStore,
  opts: { readonly ttlMs?: number; readonly now?: () => number } = {},
): SecretStore {
  return endpointSecretStore(
    cachedSecretsStore(
      api,
      secretCache({ ttlMs: opts.ttlMs ?? 60_000, ...(opts.now ? { now: opts.now } : {}) }),
    ),
  );
}
