export { dnsResolverFromEnv, zoneFileResolver } from "./dns.ts";
export { makeLogger } from "./logger.ts";
export { loadZoneFile, zoneResolver } from "./zone-resolver.ts";
