import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { Readable, Transform } from "node:stream";
import { PosternError } from "../errors.ts";
import type { HostResolver } from "../net/index.ts";
import { isPublicAddress, pinnedLookup, type VettedTarget, vetTarget } from "../net/index.ts";

/** Why the transport refused a request before or while making it; thrown, and mapped to a tool failure. */
export type TransportRefusal =
  | "mcp-host-not-allowed"
  | "mcp-address-not-public"
  | "mcp-redirect-refused"
  | "mcp-response-too-large";

export class McpTransportRefused extends Error {
  readonly reason: TransportRefusal;
  constructor(reason: TransportRefusal, detail: string) {
    super(`${reason}: ${detail}`);
    this.reason = reason;
    this.name = "McpTransportRefused";
  }
}

export interface GuardedFetchOptions {
  /** The registered server URL: its origin (scheme, host, port) is the only one ever reached. */
  readonly serverUrl: string;
  readonly resolve: HostResolver;
  /**
   * Loopback addresses allowed too: only the local stack and tests set this (explicitly), so a test server on
   * 127.0.0.1 can be reached. Private and link-local ranges stay refused even then.
   */
  readonly allowLoopback?: boolean;
  /** A response body larger than this is cut off with an error: a hostile server cannot fill the function's memory. */
  readonly maxResponseBytes: number;
  readonly maxRedirects?: number;
}

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

const isLoopback = (a: string) => a === "::1" || a.startsWith("127.") || a === "::ffff:127.0.0.1";

/**
 * The fetch the MCP client's Streamable HTTP transport uses (SSRF, as web_fetch's guard): every request, including
 * each redirect hop, must stay on the registered server's origin, and is connected only to addresses the guard
 * vetted (public ones; loopback only where explicitly allowed), so neither a redirect nor DNS rebinding turns the
 * server into a way into the VPC or the metadata service.
 */
export function guardedFetch(opts: GuardedFetchOptions): FetchLike {
  const origin = new URL(opts.serverUrl).origin;
  const allow = (address: string) =>
    (opts.allowLoopback === true && isLoopback(address)) || isPublicAddress(address);
  return async (input, init = {}) => {
    let url = new URL(String(input instanceof URL ? input.href : input));
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const method = init.method ?? "GET";
    const body = typeof init.body === "string" ? init.body : init.body == null ? undefined : null;
    if (body === null) throw new PosternError("invalid-argument", "guardedFetch sends string bodies only");
    for (let hop = 0; ; hop++) {
      if (url.origin !== origin)
        throw new McpTransportRefused(
          hop === 0 ? "mcp-host-not-allowed" : "mcp-redirect-refused",
          `${url.origin} is not the registered server ${origin}`,
        );
      const vetted = await vetTarget(url, { resolve: opts.resolve, allow });
      if (!vetted.ok) throw new McpTransportRefused("mcp-address-not-public", vetted.detail);
      const res = await send(vetted.target, method, headers, body, init.signal ?? undefined);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location) {
        res.resume();
        if (hop >= (opts.maxRedirects ?? 3))
          throw new McpTransportRefused("mcp-redirect-refused", "too many redirects");
        url = new URL(location, url);
        continue;
      }
      return toResponse(res, opts.maxResponseBytes);
    }
  };
}

function send(
  target: VettedTarget,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  const { url, host } = target;
  const https = url.protocol === "https:";
  const request = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request({
      protocol: url.protocol,
      hostname: host,
      port: url.port || (https ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      // A fresh socket per request: a pooled socket could belong to an earlier, differently vetted answer.
      agent: false,
      lookup: pinnedLookup(target),
      ...(signal ? { signal } : {}),
      ...(https && !isIP(host) ? { servername: host } : {}),
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end(body);
  });
}

function toResponse(res: IncomingMessage, maxBytes: number): Response {
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else if (v !== undefined) headers.set(k, v);
  }
  const status = res.statusCode ?? 500;
  if (status === 204 || status === 304) {
    res.resume();
    return new Response(null, { status, headers });
  }
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes)
        done(new McpTransportRefused("mcp-response-too-large", `more than ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  res.once("error", (err) => capped.destroy(err));
  res.pipe(capped);
  return new Response(Readable.toWeb(capped) as ReadableStream<Uint8Array>, { status, headers });
}
