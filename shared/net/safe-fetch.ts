import type { IncomingMessage } from "node:http";
import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { type FailWithDetail, fail, type Ok } from "../result.ts";
import { pinnedGet } from "./pinned-request.ts";
import { type HostResolver, systemResolver } from "./resolver.ts";
import { type VetFailure, vetTarget } from "./vet-target.ts";

export interface SafeFetchOptions {
  readonly resolve?: HostResolver;
  /** Replaces the public-address policy. Tests only: the guard is on unless a caller deliberately swaps it. */
  readonly allow?: (address: string) => boolean;
  /** Redirects followed, each re-vetted. Default 5. */
  readonly maxRedirects?: number;
  /**
   * Asked before a redirect is followed: false refuses it (`redirect-not-allowed`) before any request reaches the
   * target. The caller's own reach (G18: a run whose channels are closed may reach only allowed hosts, and an open
   * redirect on an allowed host must not carry the request on elsewhere).
   */
  readonly allowRedirect?: (target: URL) => Promise<boolean> | boolean;
  /** Decoded body bytes kept; the connection is cut past this. Default 2 MiB. */
  readonly maxBytes?: number;
  /** Whole exchange, all hops and the body. Default 15 s. */
  readonly timeoutMs?: number;
  /** Media types (lower-case, no parameters) whose bodies are read. Default: textual types. */
  readonly acceptMediaType?: (mediaType: string) => boolean;
  /** Extra request headers (an API key). Sent to the first URL's origin only, never across a redirect. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export interface FetchedResponse {
  /** The final URL, after redirects. */
  readonly url: string;
  readonly status: number;
  readonly mediaType: string;
  readonly charset: string | null;
  readonly body: Buffer;
  /** The body hit `maxBytes` and the connection was cut. */
  readonly truncated: boolean;
  readonly redirects: number;
}

export type SafeFetchFailure =
  | VetFailure
  | "too-many-redirects"
  | "redirect-invalid"
  | "redirect-not-allowed"
  | "timeout"
  | "connection-failed"
  | "content-type-not-allowed"
  | "content-encoding-unsupported";

export type SafeFetchResult = Ok<{ readonly response: FetchedResponse }> | FailWithDetail<SafeFetchFailure>;

export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_REDIRECTS = 5;

const TEXTUAL = new Set([
  "text/html",
  "text/plain",
  "text/markdown",
  "text/csv",
  "text/xml",
  "application/xhtml+xml",
  "application/json",
  "application/xml",
]);
export const isTextualMediaType = (t: string): boolean =>
  TEXTUAL.has(t) || /^application\/[a-z0-9.-]+\+(json|xml)$/.test(t);

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET a URL on the public internet only (SSRF guard). Every hop is parsed, resolved and vetted before a socket
 * opens, and the socket is pinned to the vetted addresses; redirects are followed by hand so each target is
 * vetted too; time, bytes and media types are capped.
 */
export async function safeFetch(url: string, opts: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const vet = { resolve: opts.resolve ?? systemResolver, ...(opts.allow ? { allow: opts.allow } : {}) };
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let firstOrigin: string | null = null;
  let next: string | URL = url;
  try {
    for (let hop = 0; ; hop++) {
      const vetted = await vetTarget(next, vet);
      if (!vetted.ok) return vetted;
      const target = vetted.target;
      firstOrigin ??= target.url.origin;
      // Caller headers (API keys) stay with the origin they were meant for, as fetch() drops Authorization.
      const extra = target.url.origin === firstOrigin ? (opts.headers ?? {}) : {};
      const res = await pinnedGet(target, { ...baseHeaders(), ...extra }, signal);
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        res.destroy();
        const location = res.headers.location;
        if (hop >= maxRedirects) return fail("too-many-redirects", `more than ${maxRedirects} redirects`);
        if (!location) return fail("redirect-invalid", `HTTP ${status} without a Location header`);
        try {
          next = new URL(location, target.url);
        } catch {
          return fail("redirect-invalid", "the redirect Location is not a valid URL");
        }
        if (opts.allowRedirect && !(await opts.allowRedirect(next)))
          return fail(
            "redirect-not-allowed",
            `the page redirects to ${next.hostname}, which this call may not reach`,
          );
        continue;
      }
      return await readBody(res, target.url.href, hop, opts);
    }
  } catch (err) {
    if (timeout.aborted)
      return fail("timeout", `no complete answer within ${opts.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`);
    if (signal.aborted) return fail("timeout", "the fetch was cancelled");
    const code = (err as { code?: string }).code;
    return fail("connection-failed", `could not fetch the page (${code ?? (err as Error).message})`);
  }
}

async function readBody(
  res: IncomingMessage,
  url: string,
  redirects: number,
  opts: SafeFetchOptions,
): Promise<SafeFetchResult> {
  const [mediaType, charset] = parseContentType(res.headers["content-type"]);
  const accept = opts.acceptMediaType ?? isTextualMediaType;
  if (!accept(mediaType)) {
    res.destroy();
    return fail("content-type-not-allowed", `content type ${mediaType || "(none)"} is not fetched`);
  }
  const stream = decoder(res);
  if (!stream) {
    res.destroy();
    return fail(
      "content-encoding-unsupported",
      `content encoding ${res.headers["content-encoding"]} is not supported`,
    );
  }
  const max = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  // The cap applies to decoded bytes, so a small gzip bomb cannot expand past it.
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const room = max - size;
    if (chunk.length >= room) {
      // Keep exactly `max` bytes; `>=` also catches a body that is exactly `max` long, which then reads as
      // truncated: without reading on we cannot tell "exactly max" from "more", and reading on is the thing the
      // cap exists to prevent.
      chunks.push(chunk.subarray(0, room));
      size = max;
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  // Cut the connection: the rest of an oversized body is never downloaded.
  res.destroy();
  if (stream !== res) (stream as Readable).destroy();
  return {
    ok: true,
    response: {
      url,
      status: res.statusCode ?? 0,
      mediaType,
      charset,
      body: Buffer.concat(chunks, size),
      truncated,
      redirects,
    },
  };
}

function decoder(res: IncomingMessage): Readable | null {
  const enc = String(res.headers["content-encoding"] ?? "identity")
    .trim()
    .toLowerCase();
  if (enc === "identity" || enc === "") return res;
  // pipeline, not pipe: an aborted response must destroy the decompressor too, or the read never ends.
  const through =
    enc === "gzip" || enc === "x-gzip"
      ? createGunzip()
      : enc === "deflate"
        ? createInflate()
        : enc === "br"
          ? createBrotliDecompress()
          : null;
  return through ? pipeline(res, through, () => {}) : null;
}

export function parseContentType(header: string | undefined): [string, string | null] {
  if (!header) return ["", null];
  const [type = "", ...params] = header.split(";");
  let charset: string | null = null;
  for (const p of params) {
    const [k, v] = p.split("=");
    if (k?.trim().toLowerCase() === "charset" && v) charset = v.trim().replace(/^"|"$/g, "").toLowerCase();
  }
  return [type.trim().toLowerCase(), charset];
}

function baseHeaders(): Record<string, string> {
  return {
    "user-agent": "Postern/0.1 (web_fetch)",
    accept: "text/html,application/xhtml+xml,application/json,text/plain;q=0.9,*/*;q=0.1",
    "accept-encoding": "gzip, deflate, br",
  };
}
