import type { LookupAddress, LookupOptions } from "node:dns";
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { VettedTarget } from "./vet-target.ts";

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:net that answers only with the addresses the guard vetted. Without it the HTTP stack
 * would resolve the name a second time, and a DNS server answering "public" to the guard and "127.0.0.1" to the
 * socket (DNS rebinding) would walk straight past the check.
 */
export function pinnedLookup(target: VettedTarget) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const family = typeof options.family === "number" ? options.family : 0;
    const list = target.addresses.filter((a) => family === 0 || a.family === family);
    const first = list[0];
    if (hostname !== target.host || !first) {
      const err: NodeJS.ErrnoException = new Error(`pinned lookup has no vetted address for ${hostname}`);
      err.code = "ENOTFOUND";
      callback(err, "", 0);
      return;
    }
    if (options.all)
      callback(
        null,
        list.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, first.address, first.family);
  };
}

/** One GET to a vetted target, connected only to its vetted addresses. Resolves when headers arrive. */
export function pinnedGet(
  target: VettedTarget,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const { url, host } = target;
  const https = url.protocol === "https:";
  const send = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send({
      protocol: url.protocol,
      hostname: host,
      port: url.port || (https ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers,
      // A fresh socket per hop: a pooled socket could belong to an earlier, differently vetted name.
      agent: false,
      lookup: pinnedLookup(target),
      signal,
      // Certificate checked against the name, not the address (SNI must not carry an IP literal, RFC 6066 §3).
      ...(https && !isIP(host) ? { servername: host } : {}),
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end();
  });
}
