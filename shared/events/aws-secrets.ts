import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import type { EndpointSecrets, SecretStore } from "./secrets.ts";

/** Secrets Manager names: the worker's grant is `secret:postern/webhooks/*` (infra/constructs/webhooks.ts). */
export const WEBHOOK_SECRET_PREFIX = "postern/webhooks/";
export const webhookSecretName = (endpointId: string): string => `${WEBHOOK_SECRET_PREFIX}${endpointId}`;

/**
 * Webhook signing secrets in Secrets Manager, one secret per endpoint holding `EndpointSecrets` as JSON. The worker
 * only reads (and caches for `ttlMs`, so a rotation reaches it within that); the CLI writes. Not found is null; any
 * other AWS error is rethrown (STYLE.md §4).
 */
export function awsSecretStore(
  client: Pick<SecretsManagerClient, "send">,
  opts: { readonly ttlMs?: number; readonly now?: () => number } = {},
): SecretStore {
  const ttl = opts.ttlMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { value: EndpointSecrets | null; until: number }>();
  const notFound = (err: unknown) => (err as { name?: unknown }).name === "ResourceNotFoundException";
  return {
    async read(id) {
      const hit = cache.get(id);
      if (hit && hit.until > now()) return hit.value;
      let value: EndpointSecrets | null;
      try {
        const out = await client.send(new GetSecretValueCommand({ SecretId: webhookSecretName(id) }));
        value = out.SecretString ? (JSON.parse(out.SecretString) as EndpointSecrets) : null;
      } catch (err) {
        if (!notFound(err)) throw err;
        value = null;
      }
      cache.set(id, { value, until: now() + ttl });
      return value;
    },
    async write(id, secrets) {
      cache.delete(id);
      const SecretString = JSON.stringify(secrets);
      try {
        await client.send(new PutSecretValueCommand({ SecretId: webhookSecretName(id), SecretString }));
      } catch (err) {
        if (!notFound(err)) throw err;
        await client.send(new CreateSecretCommand({ Name: webhookSecretName(id), SecretString }));
      }
    },
    async remove(id) {
      cache.delete(id);
      try {
        await client.send(
          new DeleteSecretCommand({ SecretId: webhookSecretName(id), ForceDeleteWithoutRecovery: true }),
        );
      } catch (err) {
        if (!notFound(err)) throw err;
      }
    },
  };
}
