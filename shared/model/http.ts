import type { Ok } from "../result.ts";
import { type ModelFailureOptions, modelFailure } from "./failure.ts";
import { parseRetryAfter, type RetryOptions, withRetry } from "./retry.ts";
import type { ModelFailure, ModelFailureReason, ModelResult } from "./types.ts";
import type { ParsedTurn } from "./wire.ts";

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface JsonPost {
  readonly fetch: FetchLike;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Values to cut from every detail (the API key). */
  readonly secrets: readonly string[];
}

/** A failed POST is the model's failure, with the server's retry-after hint when it gave one. */
export type JsonResult = Ok<{ readonly json: unknown }> | (ModelFailure & { readonly retryAfterMs?: number });

/**
 * POST a JSON body and classify the outcome the way every HTTP model API needs: throttling (429, Anthropic's 529
 * "overloaded", 503) is retryable with the server's retry-after, 401/403 is an auth failure, other 5xx retryable,
 * other 4xx final, and a 2xx that is not JSON is malformed.
 */
export async function postJson(call: JsonPost): Promise<JsonResult> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
  const where = describeUrl(call.url);
  const failPost = (
    reason: ModelFailureReason,
    detail: string,
    opts: ModelFailureOptions = {},
    retryAfterMs?: number,
  ): JsonResult => {
    const f = modelFailure(reason, detail, opts);
    return retryAfterMs === undefined ? f : { ...f, retryAfterMs };
  };
  let status: number;
  let headers: Headers;
  let text: string;
  try {
    const res = await call.fetch(call.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...call.headers },
      body: JSON.stringify(call.body),
      signal,
    });
    status = res.status;
    headers = res.headers;
    text = await res.text();
  } catch (err) {
    if (signal.aborted) {
      const why = timeout.aborted ? `no response within ${call.timeoutMs} ms` : "aborted by the caller";
      return failPost("model-timeout", `${where}: ${why}`);
    }
    return failPost("model-network", `${where}: ${describeNetworkError(err)}`, { secrets: call.secrets });
  }
  if (status >= 200 && status < 300) {
    try {
      return { ok: true, json: JSON.parse(text) };
    } catch {
      const body = `${where}: HTTP ${status} body is not JSON: ${text.slice(0, 200)}`;
      return failPost("model-malformed-response", body, { secrets: call.secrets });
    }
  }
  const detail = `${where}: HTTP ${status}: ${errorMessage(text)}`;
  const opts = { status, secrets: call.secrets };
  if (status === 429 || status === 529 || status === 503)
    return failPost("model-throttled", detail, opts, parseRetryAfter(headers));
  if (status === 401 || status === 403) return failPost("model-auth", detail, opts);
  if (status === 408) return failPost("model-timeout", detail, opts);
  return failPost("model-http-error", detail, opts);
}

/** OpenAI and Anthropic put the reason in `error.message`; Ollama and llama.cpp sometimes in a string `error`. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error === "string") return body.error;
    if (body.error && typeof body.error === "object") {
      const e = body.error as { message?: unknown; type?: unknown };
      return [e.type, e.message].filter((x) => typeof x === "string").join(": ") || text.slice(0, 300);
    }
    if (typeof body.message === "string") return body.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 300);
}

/** Append `path` to the base URL's path, keeping any query (e.g. an `api-version` some gateways require). */
export function joinUrl(base: string, path: string): string {
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/+$/, "")}${path}`;
  return u.toString();
}

/** Host and path only: a base URL's query string could carry a token. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return "model endpoint";
  }
}

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === "string") return `network error ${cause.code}`;
  return `network error: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * One model call over HTTP: post with the bounded retry policy, then parse the provider's response shape; a body
 * of the wrong shape is a recorded `model-malformed-response` (secrets cut from its detail), never a crash.
 */
export async function postTurn(
  call: JsonPost & { readonly retry?: RetryOptions | undefined; parse(json: unknown): ParsedTurn },
): Promise<ModelResult> {
  return withRetry(async () => {
    const out = await postJson(call);
    if (!out.ok) {
      const { retryAfterMs, ...result } = out;
      return retryAfterMs === undefined ? { result } : { result, retryAfterMs };
    }
    const parsed = call.parse(out.json);
    return {
      result: parsed.ok ? parsed : modelFailure(parsed.reason, parsed.detail, { secrets: call.secrets }),
    };
  }, call.retry);
}
