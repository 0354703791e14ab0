import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { SecretEntry, SecretsStore } from "./store.ts";

type Send = Pick<SecretsManagerClient, "send">;

const notFound = (err: unknown) => (err as { name?: unknown }).name === "ResourceNotFoundException";
// A forced delete finishes in the background; until it has, CreateSecret of the same name is refused
// ("scheduled for deletion"): an endpoint removed and added again at once met it.
const stillDeleting = (err: unknown) => {
  const e = err as { name?: unknown; message?: unknown };
  return e.name === "InvalidRequestException" && /scheduled for deletion/i.test(String(e.message));
};
const CREATE_RETRY_MS: readonly number[] = [500, 1000, 2000, 4000, 6000];

/**
 * The one Secrets Manager adapter. The SDK is imported on first use, not at module load: the agent-step bundle
 * must not pay for the client at cold start when no model key or MCP credential is read.
 */
export function awsSecretsStore(
  opts: { readonly client?: Send; readonly sleep?: (ms: number) => Promise<void> } = {},
): SecretsStore {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let client: Promise<Send> | undefined = opts.client ? Promise.resolve(opts.client) : undefined;
  const sdk = () => import("@aws-sdk/client-secrets-manager");
  const send = async (build: (m: Awaited<ReturnType<typeof sdk>>) => unknown) => {
    client ??= sdk().then((m) => new m.SecretsManagerClient({}));
    const [c, m] = await Promise.all([client, sdk()]);
    // One send for every command: the SDK types each command's output apart, and each caller reads its own fields.
    return (await c.send(build(m) as never)) as unknown as Record<string, unknown>;
  };
  return {
    async get(name) {
      try {
        return ((await send((m) => new m.GetSecretValueCommand({ SecretId: name }))).SecretString ?? null) as
          | string
          | null;
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    async set(name, value) {
      try {
        await send((m) => new m.PutSecretValueCommand({ SecretId: name, SecretString: value }));
        return;
      } catch (err) {
        if (!notFound(err)) throw err;
      }
      for (const wait of [...CREATE_RETRY_MS, null]) {
        try {
          await send((m) => new m.CreateSecretCommand({ Name: name, SecretString: value }));
          return;
        } catch (err) {
          if (wait === null || !stillDeleting(err)) throw err;
          await sleep(wait);
        }
      }
    },
    async remove(name) {
      try {
        await send((m) => new m.DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }));
        return true;
      } catch (err) {
        if (notFound(err)) return false;
        throw err;
      }
    },
    async list() {
      const out: SecretEntry[] = [];
      let token: string | undefined;
      do {
        const page = await send(
          (m) =>
            new m.ListSecretsCommand({
              Filters: [{ Key: "name", Values: ["postern/"] }],
              ...(token ? { NextToken: token } : {}),
            }),
        );
        for (const s of (page.SecretList ?? []) as { Name?: string; LastChangedDate?: Date }[])
          if (s.Name) out.push({ name: s.Name, updatedAt: s.LastChangedDate?.toISOString() });
        token = page.NextToken as string | undefined;
      } while (token);
      return out.sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}
