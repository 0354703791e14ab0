import type { Logger } from "../logger.ts";
import { parseSecretReference, type SecretReference } from "./reference.ts";
import type { SecretsStore } from "./store.ts";

/**
 * Reads a reference: a `secretsmanager:` name from the store, or (deprecated, kept one release) an env var. The
 * env form logs one deprecation line per variable per process naming the command that moves it into the store.
 */
export function secretReader(
  store: SecretsStore,
  opts: {
    readonly env?: Readonly<Record<string, string | undefined>>;
    readonly log?: Pick<Logger, "warn">;
  } = {},
): (ref: SecretReference | string) => Promise<string | null> {
  const env = opts.env ?? process.env;
  const warned = new Set<string>();
  return async (input) => {
    let ref: SecretReference;
    if (typeof input === "string") {
      const parsed = parseSecretReference(input);
      if (!parsed.ok) return null;
      ref = parsed.ref;
    } else ref = input;
    if (ref.kind === "secret") return store.get(ref.name);
    if (!warned.has(ref.variable)) {
      warned.add(ref.variable);
      opts.log?.warn("secret-env-deprecated", {
        variable: ref.variable,
        detail: `env var secret references are deprecated and go in the next release; run: postern secrets set postern/<name> and reference secretsmanager:postern/<name>`,
      });
    }
    const value = env[ref.variable];
    return value === undefined || value === "" ? null : value;
  };
}
