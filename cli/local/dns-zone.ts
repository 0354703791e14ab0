import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The local DNS for DKIM: a zone file in mailauth's resolver shape, `{"name": {"TXT": [["chunk", ...]]}}` or
 * `{"name": {"error": "ENOTFOUND"}}`. The resolver re-reads the file on every lookup, so `postern dev keys`
 * takes effect in a running stack without a restart.
 */
export interface ZoneEntry {
  readonly TXT?: readonly (readonly string[])[];
  readonly error?: string;
}
export type DnsZone = Readonly<Record<string, ZoneEntry>>;

export function ensureZoneFile(path: string): void {
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, "{}\n");
}

export function readZone(path: string): DnsZone {
  if (!existsSync(path)) return {};
  const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${path}: a zone file must be a JSON object of names`);
  }
  return parsed as DnsZone;
}

/** Set (replace) the TXT record of `name`, split into 255-octet strings as DNS TXT requires (RFC 1035 §3.3.14). */
export function setTxtRecord(path: string, name: string, value: string): void {
  const zone = { ...readZone(path) };
  const chunks: string[] = [];
  for (let i = 0; i < value.length; i += 255) chunks.push(value.slice(i, i + 255));
  zone[name.toLowerCase()] = { TXT: [chunks] };
  mkdirSync(dirname(path), { recursive: true });
  // Write-then-rename: a running stack reading the zone never sees half a file.
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(zone, null, 2)}\n`);
  renameSync(tmp, path);
}

/** A resolver for mailauth's `resolver` option (same contract as `dns.promises.resolve`). */
export type ZoneResolver = (name: string, rrtype: string) => Promise<unknown>;

export function zoneFileResolver(path: string): ZoneResolver {
  return async (name, rrtype) => lookup(readZone(path), name, rrtype);
}

export function lookup(zone: DnsZone, name: string, rrtype: string): unknown {
  const entry = zone[name.toLowerCase().replace(/\.$/, "")];
  if (!entry) throw dnsError("ENOTFOUND", name);
  if (entry.error) throw dnsError(entry.error, name);
  const records = (entry as Record<string, unknown>)[rrtype.toUpperCase()];
  if (!records) throw dnsError("ENODATA", name);
  return records;
}

function dnsError(code: string, name: string): Error {
  const err = new Error(`${code} ${name}`) as Error & { code: string; hostname: string };
  err.code = code;
  err.hostname = name;
  return err;
}
