// Front door of shared/runtime: Lambda runtime glue: the logger and DNS. Outside this folder, import this
// file only (docs/architecture.md).

export { dnsResolverFromEnv, zoneFileResolver } from "./dns.ts";
export { makeLogger } from "./logger.ts";
export { loadZoneFile, zoneResolver } from "./zone-resolver.ts";
