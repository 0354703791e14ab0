import { type FailWithDetail, fail, type Ok, ok } from "../result.ts";

/**
 * The one secret reference syntax: `secretsmanager:postern/<path>` names a secret in Secrets Manager in AWS and an
 * entry of the local store (`.postern/secrets.json`) on the local stack; the name after the prefix is the same in
 * both, so one catalog entry or MCP registration works in both places. `env:<VAR>` is the deprecated form kept for
 * one release (an env var named in the reference).
 */
export const SECRET_PREFIX = "secretsmanager:";
/** Every name lives under it: the stack's GetSecretValue grants are `secret:postern/*`-scoped, never `*`. */
export const SECRET_NAMESPACE = "postern/";

export type SecretReference =
  | { readonly kind: "secret"; readonly name: string }
  | { readonly kind: "env"; readonly variable: string };

export type SecretReferenceReason =
  | "reference-empty"
  | "reference-scheme"
  | "reference-namespace"
  | "reference-name";

// Secrets Manager allows ASCII letters, digits and /_+=.@- in a name; `..` and an empty segment are refused so a
// name never climbs out of postern/ in a grant pattern or a file path.
const NAME = /^postern(\/[A-Za-z0-9_+=.@-]+)+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses a reference; failures name the part that is wrong, never echo more than the reference itself. */
export function parseSecretReference(
  text: string,
): Ok<{ readonly ref: SecretReference }> | FailWithDetail<SecretReferenceReason> {
  if (text.trim() === "") return fail("reference-empty", "a secret reference is empty");
  if (text.startsWith("env:")) {
    const variable = text.slice(4);
    if (!ENV_NAME.test(variable)) return fail("reference-name", `"${text}": not an env var name`);
    return ok({ ref: { kind: "env", variable } });
  }
  if (!text.startsWith(SECRET_PREFIX))
    return fail("reference-scheme", `"${text}": a secret reference starts with ${SECRET_PREFIX}`);
  const name = text.slice(SECRET_PREFIX.length);
  if (!name.startsWith(SECRET_NAMESPACE))
    return fail("reference-namespace", `"${text}": secret names are under ${SECRET_NAMESPACE}`);
  if (!NAME.test(name) || name.split("/").some((s) => s === "." || s === ".."))
    return fail("reference-name", `"${text}": a name is ${SECRET_NAMESPACE}<segments of A-Z a-z 0-9 _+=.@->`);
  return ok({ ref: { kind: "secret", name } });
}

/** Whether `name` (no prefix) is a valid secret name: what `postern secrets set` accepts. */
export function isSecretName(name: string): boolean {
  return parseSecretReference(`${SECRET_PREFIX}${name}`).ok;
}
