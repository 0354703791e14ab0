import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { PosternError } from "../../shared/errors.ts";

/**
 * The local DNS for DKIM: a zone file in mailauth's resolver shape, `{"name": {"TXT": [["chunk", ...]]}}` or
 * `{"name": {"error": "ENOTFOUND"}}`. The resolver (shared/runtime/dns.ts) re-reads the file on every lookup, so `postern dev keys`
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
    throw new PosternError("misconfigured", `${path}: a zone file must be a JSON object of names`);
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
