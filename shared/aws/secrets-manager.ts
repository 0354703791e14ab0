import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";

/**
 * Secrets Manager, as the webhook secret store needs it (shared/webhooks/secret-manager-store.ts): a secret's string by
 * name, written or created, deleted at once. The one known error, ResourceNotFoundException, is a value (null,
 * `missing`, `false`); any other is rethrown untouched (STYLE.md §4). Kept out of shared/webhooks so that the functions
 * that only emit events do not bundle this client.
 */
export interface SecretStrings {
  get(name: string): Promise<string | null>;
  /** A new value for an existing secret; `missing` when there is none. */
  put(name: string, value: string): Promise<"written" | "missing">;
  create(name: string, value: string): Promise<void>;
  /** Deleted with no recovery window (a removed endpoint's secret must stop signing now). → existed? */
  remove(name: string): Promise<boolean>;
}

const notFound = (err: unknown) => (err as { name?: unknown }).name === "ResourceNotFoundException";

/**
 * A forced delete finishes in the background (DeleteSecret, ForceDeleteWithoutRecovery: "there might be a short
 * delay"; code that deletes and recreates a name should back off and retry), and until it has, CreateSecret of the
 * same name is refused as "scheduled for deletion": a webhook endpoint removed and added again at once met it.
 */
const stillDeleting = (err: unknown) => {
  const e = err as { name?: unknown; message?: unknown };
  return e.name === "InvalidRequestException" && /scheduled for deletion/i.test(String(e.message));
};

/**
 * Waits between CreateSecret attempts while a forced delete of the name completes: 13.5 s in all, inside the
 * console function's 20 s timeout (infra/constructs/console.ts), which adds endpoints too.
 */
export const CREATE_RETRY_MS: readonly number[] = [500, 1000, 2000, 4000, 6000];

export function secretStrings(
  client: Pick<SecretsManagerClient, "send">,
  opts: { readonly sleep?: (ms: number) => Promise<void> } = {},
): SecretStrings {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return {
    async get(name) {
      try {
        return (await client.send(new GetSecretValueCommand({ SecretId: name }))).SecretString ?? null;
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    async put(name, value) {
      try {
        await client.send(new PutSecretValueCommand({ SecretId: name, SecretString: value }));
        return "written";
      } catch (err) {
        if (notFound(err)) return "missing";
        throw err;
      }
    },
    async create(name, value) {
      for (const wait of [...CREATE_RETRY_MS, null]) {
        try {
          await client.send(new CreateSecretCommand({ Name: name, SecretString: value }));
          return;
        } catch (err) {
          if (wait === null || !stillDeleting(err)) throw err;
          await sleep(wait);
        }
      }
    },
    async remove(name) {
      try {
        await client.send(new DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }));
        return true;
      } catch (err) {
        if (notFound(err)) return false;
        throw err;
      }
    },
  };
}

/** Secrets Manager with the function's own credentials and region (the webhooks worker's cold start). */
export const awsSecretStrings = (): SecretStrings => secretStrings(new SecretsManagerClient({}));
