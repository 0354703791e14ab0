import { promises as dns } from "node:dns";
import type { DNSResolver } from "mailauth";
import { loadZoneFile, zoneResolver } from "../gate/zone-resolver.ts";

export const DNS_ZONE_ENV = "POSTERN_DNS_ZONE_FILE";

/**
 * Real DNS in AWS; locally a zone file (mailauth resolver shape), re-read on every lookup so a key added by
 * `postern dev keys` while the stack runs is seen at once.
 */
export function dnsResolverFromEnv(env: NodeJS.ProcessEnv = process.env): DNSResolver {
  const zoneFile = env[DNS_ZONE_ENV];
  if (zoneFile) return (name, rrtype) => zoneResolver(loadZoneFile(zoneFile))(name, rrtype);
  return (name, rrtype) => dns.resolve(name, rrtype as "TXT") as Promise<never>;
}
