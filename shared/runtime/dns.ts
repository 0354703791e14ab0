import { promises as dns } from "node:dns";
import type { DNSResolver } from "mailauth";
import { loadZoneFile, zoneResolver } from "./zone-resolver.ts";

export const DNS_ZONE_ENV = "POSTERN_DNS_ZONE_FILE";

/** A resolver over a zone file, re-read on every lookup so a key added while the stack runs is seen at once. */
export function zoneFileResolver(path: string): DNSResolver {
  return (name, rrtype) => zoneResolver(loadZoneFile(path))(name, rrtype);
}

/** Real DNS in AWS; locally (POSTERN_DNS_ZONE_FILE) a zone file in mailauth's resolver shape. */
export function dnsResolverFromEnv(env: NodeJS.ProcessEnv = process.env): DNSResolver {
  const zoneFile = env[DNS_ZONE_ENV];
  if (zoneFile) return zoneFileResolver(zoneFile);
  return (name, rrtype) => dns.resolve(name, rrtype as "TXT") as Promise<never>;
}
