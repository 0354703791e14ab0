import { unreachable } from "./unreachable.ts";

/**
 * The one Joi schema the verify bundle runs: mailauth's lib/tools.js builds `Joi.string().base64({ paddingRequired:
 * false })` once and validates a DKIM key record's p= with it (RFC 6376 §3.6.1) before Node's crypto reads the key.
 * All of Joi (with @hapi/*) is ~190 KB of the bundle and ~30 ms of its cold start for that one regular expression.
 *
 * This module is that schema and nothing else, rule for rule from joi 18.2.9 (lib/types/string.js): undefined is
 * allowed (presence optional), a non-string is `string.base`, "" is `string.empty`, anything else must match
 * `base64Regex[paddingRequired=false][urlSafe=false]`. test/infra/joi-stub.test.ts holds it to the real Joi, the one
 * mailauth resolves, over generated strings. Any other use of Joi throws.
 */

// joi 18.2.9, lib/types/string.js, internals.base64Regex.false.false
const BASE64_PADDING_OPTIONAL =
  /^(?:[A-Za-z0-9+/]{2}[A-Za-z0-9+/]{2})*(?:[A-Za-z0-9+/]{2}(==)?|[A-Za-z0-9+/]{3}=?)?$/;

// joi's own messages (lib/types/string.js), with its default label
const MESSAGES = {
  "string.base": '"value" must be a string',
  "string.empty": '"value" is not allowed to be empty',
  "string.base64": '"value" must be a valid base64 string',
} as const;

type Code = keyof typeof MESSAGES;

export interface ValidationResult {
  readonly value: unknown;
  readonly error?: Error & { details: { message: string; path: []; type: Code }[] };
}

function failure(value: unknown, type: Code): ValidationResult {
  const message = MESSAGES[type];
  const error = Object.assign(new Error(message), { details: [{ message, path: [] as [], type }] });
  error.name = "ValidationError";
  return { value, error };
}

function validateBase64(value: unknown, ...rest: unknown[]): ValidationResult {
  if (rest.length > 0) unreachable("joi validate(value, options)", "mailauth validates without options");
  if (value === undefined) return { value };
  if (typeof value !== "string") return failure(value, "string.base");
  if (value === "") return failure(value, "string.empty");
  return BASE64_PADDING_OPTIONAL.test(value) ? { value } : failure(value, "string.base64");
}

export function string(...args: unknown[]) {
  if (args.length > 0) unreachable("joi.string(...)", "mailauth calls Joi.string() without arguments");
  return {
    base64(options?: { paddingRequired?: unknown; urlSafe?: unknown }) {
      if (
        options?.paddingRequired !== false ||
        options.urlSafe !== undefined ||
        Object.keys(options).length !== 1
      )
        unreachable(
          `joi.string().base64(${JSON.stringify(options)})`,
          "only base64({ paddingRequired: false }) is provided",
        );
      return { validate: validateBase64 };
    },
  };
}

export default { string };
