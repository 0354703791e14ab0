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

/** Build a failure whose detail is redacted and bounded. */
export function failure(
  reason: ModelFailureReason,
  detail: string,
  retryable: boolean,
  secrets: readonly string[] = [],
): ModelFailure {
  const clean = redact(detail, secrets);
  return {
    ok: false,
    reason,
    detail: clean.length > MAX_DETAIL ? `${clean.slice(0, MAX_DETAIL)}...` : clean,
    retryable,
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
