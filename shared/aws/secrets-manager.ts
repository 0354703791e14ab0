import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";

/**
 * Secrets Manager, as the webhook secret store needs it (shared/events/secret-manager-store.ts): a secret's string by
 * name, written or created, deleted at once. The one known error, ResourceNotFoundException, is a value (null,
 * `missing`, `false`); any other is rethrown untouched (STYLE.md §4). Kept out of shared/events so that the functions
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

export function secretStrings(client: Pick<SecretsManagerClient, "send">): SecretStrings {
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
      await client.send(new CreateSecretCommand({ Name: name, SecretString: value }));
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
