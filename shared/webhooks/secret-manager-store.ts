import { WEBHOOK_SECRET_PREFIX } from "../ports/index.ts";
import type { EndpointSecrets, SecretStore } from "./secrets.ts";

/** Secrets Manager names: the worker's grant is `secret:postern/webhooks/*` (infra/constructs/webhooks.ts). */
export const webhookSecretName = (endpointId: string): string => `${WEBHOOK_SECRET_PREFIX}${endpointId}`;

/** What this store needs of Secrets Manager (shared/aws/secrets-manager.ts implements it over the SDK). */
export interface SecretStringsPort {
  get(name: string): Promise<string | null>;
  put(name: string, value: string): Promise<"written" | "missing">;
  create(name: string, value: string): Promise<void>;
  remove(name: string): Promise<boolean>;
}

/**
 * Webhook signing secrets in Secrets Manager, one secret per endpoint holding `EndpointSecrets` as JSON. The worker
 * only reads, and keeps a read for `ttlMs` (a rotation reaches it within that; the overlap is hours); the CLI writes.
 */
export function secretManagerStore(
  api: SecretStringsPort,
  opts: { readonly ttlMs?: number; readonly now?: () => number } = {},
): SecretStore {
  const ttl = opts.ttlMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { value: EndpointSecrets | null; until: number }>();
  return {
    async read(id) {
      const hit = cache.get(id);
      if (hit && hit.until > now()) return hit.value;
      const text = await api.get(webhookSecretName(id));
      const value = text ? (JSON.parse(text) as EndpointSecrets) : null;
      cache.set(id, { value, until: now() + ttl });
      return value;
    },
    async write(id, secrets) {
      cache.delete(id);
      const text = JSON.stringify(secrets);
      if ((await api.put(webhookSecretName(id), text)) === "missing")
        await api.create(webhookSecretName(id), text);
    },
    async remove(id) {
      cache.delete(id);
      await api.remove(webhookSecretName(id));
    },
  };
}
