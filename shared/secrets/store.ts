/** A secret's name and when it last changed: what `postern secrets list` shows (never a value). */
export interface SecretEntry {
  readonly name: string;
  /** ISO 8601, or undefined where the backend does not say. */
  readonly updatedAt: string | undefined;
}

/**
 * The one place secret values live: Secrets Manager in AWS, `.postern/secrets.json` locally. Names are
 * `postern/...` (reference.ts); `get` of a name that is not there is null, any other failure throws.
 */
export interface SecretsStore {
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  /** → whether it existed. */
  remove(name: string): Promise<boolean>;
  list(): Promise<readonly SecretEntry[]>;
}
