import { isIP } from "node:net";
import { type FailWithDetail, fail, type Ok } from "../result.ts";
import { checkAddress } from "./address-policy.ts";
import type { HostResolver } from "./resolver.ts";

/** A URL that passed the guard, with the exact addresses the connection is pinned to. */
export interface VettedTarget {
  readonly url: URL;
  /** Host name without IPv6 brackets: the Host header and the TLS server name. */
  readonly host: string;
  readonly addresses: readonly { readonly address: string; readonly family: 4 | 6 }[];
}

export type VetFailure =
  | "url-invalid"
  | "scheme-not-allowed"
  | "url-credentials"
  | "dns-failed"
  | "address-not-public";

export type VetResult = Ok<{ readonly target: VettedTarget }> | FailWithDetail<VetFailure>;

export interface VetOptions {
  readonly resolve: HostResolver;
  /** Replaces the public-address policy. For tests that must reach a loopback server; never set in production. */
  readonly allow?: (address: string) => boolean;
}

/**
 * Parse with the WHATWG URL parser (what browsers do: `http://2130706433/` and `http://0x7f.1/` become
 * 127.0.0.1 before we look), allow http(s) only, then check every address the host resolves to.
 */
export async function vetTarget(raw: string | URL, opts: VetOptions): Promise<VetResult> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail("url-invalid", "not a valid absolute URL");
  }
  // file:, ftp:, gopher:, data: ... reach local files or speak protocols an HTTP guard does not understand.
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return fail("scheme-not-allowed", `only http and https URLs can be fetched, not ${url.protocol}`);
  }
  // user:pass@ is a classic disguise for the real host (http://trusted.example@evil/) and would send secrets.
  if (url.username || url.password) return fail("url-credentials", "URLs with credentials are not fetched");
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (!host) return fail("url-invalid", "the URL has no host");

  let addresses: readonly string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await opts.resolve(host);
    } catch (err) {
      return fail("dns-failed", `could not resolve ${host} (${(err as { code?: string }).code ?? "error"})`);
    }
    if (addresses.length === 0) return fail("dns-failed", `${host} has no addresses`);
  }
  const allowed = opts.allow ?? ((a: string) => checkAddress(a).ok);
  for (const address of addresses) {
    // Any one non-public answer refuses the host: the socket layer may pick any of them.
    if (!allowed(address)) {
      const verdict = checkAddress(address);
      const range = verdict.ok ? "not-allowed" : verdict.reason;
      return fail("address-not-public", `${host} resolves to a non-public address (${range})`);
    }
  }
  return {
    ok: true,
    target: {
      url,
      host,
      addresses: addresses.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 })),
    },
  };
}
