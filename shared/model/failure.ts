import { fail } from "../result.ts";
import type { ModelFailure, ModelFailureReason } from "./types.ts";

const MAX_DETAIL = 1000;
/** A key fragment this long is treated as the key: servers often echo a key partly masked or truncated. */
const FRAGMENT = 12;

/**
 * Remove every secret from `text` (G16: keys never reach logs, traces or errors). Besides exact occurrences, any
 * run of FRAGMENT or more characters copied from a secret is cut, because providers echo keys truncated
 * ("Incorrect API key provided: sk-abc...") and a truncated key is still most of a key.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const live = secrets.filter((s) => s.length > 0);
  if (live.length === 0) return text;
  const cover = new Uint8Array(text.length);
  for (const secret of live) {
    const n = Math.min(FRAGMENT, secret.length);
    const fragments = new Set<string>();
    for (let i = 0; i + n <= secret.length; i++) fragments.add(secret.slice(i, i + n));
    for (let i = 0; i + n <= text.length; i++) {
      if (fragments.has(text.slice(i, i + n))) cover.fill(1, i, i + n);
    }
  }
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (cover[i] === 0) out += text[i];
    else if (i === 0 || cover[i - 1] === 0) out += "[redacted]";
  }
  return out;
}

/**
 * Whether the same request may succeed later, so the loop lets the queue redeliver the round: throttling,
 * timeouts, network errors and server errors (5xx, or a service fault with no status) may; auth, configuration,
 * a malformed response, any other 4xx and a spent script never will. The rule lives here so no caller re-derives it.
 */
export function isTransientModelFailure(reason: ModelFailureReason, status?: number): boolean {
  switch (reason) {
    case "model-throttled":
    case "model-timeout":
    case "model-network":
      return true;
    case "model-http-error":
      return status === undefined || status >= 500;
    default:
      return false;
  }
}

export interface ModelFailureOptions {
  /** The HTTP status, when there was one: a `model-http-error` is retryable only for 5xx. */
  readonly status?: number | undefined;
  /** Values to cut from the detail (the API key). */
  readonly secrets?: readonly string[];
  /** Overrides the rule, for a script that drills a failure as it is written. */
  readonly retryable?: boolean;
}

/** The model's failure: detail redacted and bounded, `retryable` computed from the reason (and status). */
export function modelFailure(
  reason: ModelFailureReason,
  detail: string,
  opts: ModelFailureOptions = {},
): ModelFailure {
  const clean = redact(detail, opts.secrets ?? []);
  return {
    ...fail(reason, clean.length > MAX_DETAIL ? `${clean.slice(0, MAX_DETAIL)}...` : clean),
    retryable: opts.retryable ?? isTransientModelFailure(reason, opts.status),
  };
}

/** Node's network error codes (undici puts them on `cause`). */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);

export function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
