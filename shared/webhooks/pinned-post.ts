import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { HostResolver } from "../net/index.ts";
import { pinnedLookup, vetTarget } from "../net/index.ts";
import { endpointAddressAllowed, isLoopback } from "./endpoint-reach.ts";
import type { Post } from "./ports.ts";

/** A receiver's answer is read only to its status; at most this much of the body is drained. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * The worker's POST, with web_fetch's SSRF guard (shared/net): the URL parsed as browsers parse it, the host
 * resolved and every address checked (an endpoint is an operator's URL, but its DNS is anyone's: a name that
 * resolves to 169.254.169.254 or to the VPC must not receive signed requests from inside the account), and the
 * socket pinned to the checked addresses (DNS rebinding). https only, unless `allowLoopback` (the local stack's
 * explicit local-only setting, never set in AWS) admits plain http to a loopback address for tests and demos.
 * Redirects are not followed: the caller treats any non-2xx as a failure.
 */
export function pinnedPost(opts: { readonly resolve: HostResolver; readonly allowLoopback?: boolean }): Post {
  const allowLoopback = opts.allowLoopback === true;
  return async (raw, headers, body, timeoutMs) => {
    const vetted = await vetTarget(raw, {
      resolve: opts.resolve,
      ...(allowLoopback ? { allow: endpointAddressAllowed(true) } : {}),
    });
    if (!vetted.ok) return { ok: false, reason: vetted.reason, detail: vetted.detail };
    const { url, host } = vetted.target;
    const loopbackOnly = vetted.target.addresses.every((a) => isLoopback(a.address));
    // A signed event in clear text can be read on the way: https, except to this machine in the local stack.
    if (url.protocol !== "https:" && !(allowLoopback && loopbackOnly))
      return { ok: false, reason: "scheme-not-allowed", detail: "webhook endpoints must use https" };
    const https = url.protocol === "https:";
    const send = https ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      const req = send({
        protocol: url.protocol,
        hostname: host,
        port: url.port || (https ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        agent: false,
        lookup: pinnedLookup(vetted.target),
        signal: AbortSignal.timeout(timeoutMs),
        ...(https && !isIP(host) ? { servername: host } : {}),
      });
      req.once("response", (res) => {
        let seen = 0;
        res.on("data", (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.once("close", () => resolve({ ok: true, status: res.statusCode ?? 0 }));
        res.once("error", () => resolve({ ok: true, status: res.statusCode ?? 0 }));
      });
      req.once("error", (err) => {
        const timeout = err.name === "AbortError" || err.name === "TimeoutError";
        resolve({
          ok: false,
          reason: timeout ? "timeout" : "connection-failed",
          detail: timeout
            ? `no answer within ${timeoutMs} ms`
            : `${(err as { code?: string }).code ?? err.name}`,
        });
      });
      req.end(body);
    });
  };
}
