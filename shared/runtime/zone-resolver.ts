import { PosternError } from "../errors.ts";
// A DNS resolver served from a zone object in mailauth's resolver shape (the local stack's and the
// tests' DNS): `{"name": {"TXT": [["chunk", ...]]}}`, or `{"name": {"error": "ENOTFOUND"}}`.
// It records every question in `calls`, so a test can assert what was asked (mailauth
// test/helpers/dns-zone.js does the same).

import { readFileSync } from "node:fs";
import * as z from "zod";

const ERROR_CODES = ["ENOTFOUND", "ENODATA", "ETIMEOUT", "ESERVFAIL", "EREFUSED"] as const;
export type DnsErrorCode = (typeof ERROR_CODES)[number];

const zoneEntrySchema = z.union([
  z.object({ error: z.enum(ERROR_CODES) }).strict(),
  z.record(z.string().regex(/^[A-Z]+$/), z.array(z.array(z.string()))),
]);
export const zoneSchema = z.record(z.string(), zoneEntrySchema);
export type Zone = z.infer<typeof zoneSchema>;

export type ZoneCall = { name: string; rrtype: string };
export type ZoneResolver = ((name: string, rrtype: string) => Promise<string[][]>) & { calls: ZoneCall[] };

function dnsError(code: DnsErrorCode, name: string): Error {
  return Object.assign(new Error(`${code} ${name}`), { code, hostname: name });
}

// DNS names compare case-insensitively, and a trailing root dot names the same node
const normaliseName = (name: string) => name.toLowerCase().replace(/\.$/, "");

export function zoneResolver(zone: Zone): ZoneResolver {
  const entries = new Map(Object.entries(zone).map(([name, entry]) => [normaliseName(name), entry]));
  const calls: ZoneCall[] = [];
  const resolve = async (name: string, rrtype: string): Promise<string[][]> => {
    calls.push({ name, rrtype });
    const entry = entries.get(normaliseName(name));
    if (entry === undefined) throw dnsError("ENOTFOUND", name);
    if ("error" in entry && typeof entry.error === "string")
      throw dnsError(entry.error as DnsErrorCode, name);
    const records = (entry as Record<string, string[][]>)[rrtype.toUpperCase()];
    if (records === undefined) throw dnsError("ENODATA", name);
    return records.map((chunks) => [...chunks]);
  };
  return Object.assign(resolve, { calls });
}

/** Reads and validates a zone file; a malformed file is a configuration error and throws. */
export function loadZoneFile(path: string): Zone {
  const parsed = zoneSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success)
    throw new PosternError(
      "misconfigured",
      `invalid DNS zone file ${path}: ${z.prettifyError(parsed.error)}`,
    );
  return parsed.data;
}
