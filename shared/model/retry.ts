import type { ModelFailure, ModelResult } from "./types.ts";

export interface RetryOptions {
  /** Total attempts for throttling (429/529/503/ThrottlingException). Default 3. */
  readonly maxAttempts?: number;
  /** First backoff step; doubles per attempt. Default 1000 ms. */
  readonly baseDelayMs?: number;
  /** Cap on a computed backoff step. Default 20 s. */
  readonly maxDelayMs?: number;
  /** Cap on a server's `retry-after`: a Lambda must not sleep through its own timeout. Default 30 s. */
  readonly maxRetryAfterMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** In [0, 1); injectable so tests can pin the jitter. */
  readonly random?: () => number;
}

/** One attempt's outcome; `retryAfterMs` is the server's hint (retry-after / retry-after-ms), if any. */
export interface Attempt {
  readonly result: ModelResult;
  readonly retryAfterMs?: number;
}

export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Run `attempt` with bounded retries. Throttling is retried up to `maxAttempts` with exponential backoff and
 * jitter (equal jitter: half fixed, half random, so synchronized Lambdas spread out but never retry at once).
 * A retryable server error or network error is retried once: a broken server rarely heals within seconds and
 * every retry spends Lambda time. Everything else (4xx, auth, malformed, timeout) returns at once; a timeout is
 * not retried here because the attempt already spent its whole budget.
 */
export async function withRetry(
  attempt: (n: number) => Promise<Attempt>,
  options: RetryOptions = {},
): Promise<ModelResult> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const base = options.baseDelayMs ?? 1000;
  const maxDelay = options.maxDelayMs ?? 20_000;
  const maxRetryAfter = options.maxRetryAfterMs ?? 30_000;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  for (let n = 1; ; n++) {
    const { result, retryAfterMs } = await attempt(n);
    if (result.ok) return result;
    const limit = attemptsAllowed(result, maxAttempts);
    if (n >= limit) return n > 1 ? { ...result, detail: `${result.detail} (after ${n} attempts)` } : result;
    const step = Math.min(maxDelay, base * 2 ** (n - 1));
    const delay =
      retryAfterMs !== undefined ? Math.min(retryAfterMs, maxRetryAfter) : step / 2 + (random() * step) / 2;
    await sleep(Math.round(delay));
  }
}

function attemptsAllowed(f: ModelFailure, maxAttempts: number): number {
  if (f.reason === "model-throttled") return maxAttempts;
  if ((f.reason === "model-http-error" && f.retryable) || f.reason === "model-network")
    return Math.min(2, maxAttempts);
  return 1;
}

/** Parse `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date, RFC 9110 §10.2.3). */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
