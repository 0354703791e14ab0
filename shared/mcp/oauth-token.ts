import { createHash } from "node:crypto";
import type { McpAuth } from "../admin/index.ts";
import type { HostResolver } from "../net/index.ts";
import { guardedFetch } from "./guarded-fetch.ts";
import { McpUnavailable } from "./mcp-unavailable.ts";

type ClientCredentials = Extract<McpAuth, { kind: "oauth-client-credentials" }>;

/** Tokens by client and endpoint, reused until a minute before they expire. */
const cache = new Map<string, { readonly token: string; readonly until: number }>();

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): the client id and secret at the token endpoint, the access token
 * as the bearer. The token endpoint is reached through the same guard as the server (its own origin only, no
 * private addresses). The secret goes in the Basic header (§2.3.1), never in a URL or a log line.
 */
export async function clientCredentialsToken(
  auth: ClientCredentials,
  secret: string,
  net: { readonly resolve: HostResolver; readonly allowLoopback: boolean },
  now: () => number = Date.now,
): Promise<string> {
  // The secret is part of the key (hashed, never kept): a rotated or different secret never reuses a token it
  // did not earn.
  const key = `${auth.tokenUrl}\n${auth.clientId}\n${auth.scope ?? ""}\n${createHash("sha256").update(secret).digest("hex")}`;
  const hit = cache.get(key);
  if (hit && hit.until > now()) return hit.token;
  const fetch = guardedFetch({
    serverUrl: auth.tokenUrl,
    resolve: net.resolve,
    allowLoopback: net.allowLoopback,
    maxResponseBytes: 64 * 1024,
  });
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (auth.scope) form.set("scope", auth.scope);
  const basic = Buffer.from(`${encodeURIComponent(auth.clientId)}:${encodeURIComponent(secret)}`).toString(
    "base64",
  );
  const res = await fetch(auth.tokenUrl, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => null)) as {
    access_token?: unknown;
    expires_in?: unknown;
  } | null;
  if (!res.ok || typeof body?.access_token !== "string")
    throw new McpUnavailable("mcp-auth-unavailable", `token endpoint answered ${res.status}`);
  const ttl = typeof body.expires_in === "number" ? body.expires_in * 1000 : 300_000;
  cache.set(key, { token: body.access_token, until: now() + Math.max(0, ttl - 60_000) });
  return body.access_token;
}
