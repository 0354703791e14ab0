import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { domainName } from "../../shared/config/index.ts";
import { setTxtRecord } from "./dns-zone.ts";

/**
 * Development DKIM keys for test domains: the private key in `<dir>/keys/<domain>.<selector>.pem`, the public
 * key record at `<selector>._domainkey.<domain>` in the local zone file. Key generation lives here alone so it
 * can be swapped for shared/mail's signer helpers once they exist.
 */
export interface DevKey {
  readonly domain: string;
  readonly selector: string;
  readonly privateKeyPem: string;
  readonly keyPath: string;
  readonly dnsName: string;
  readonly record: string;
}

export type DevKeyResult =
  | { readonly ok: true; readonly created: boolean; readonly key: DevKey }
  | DevKeyRefusal;
export type DevKeyRefusal = { readonly ok: false; readonly reason: "invalid-domain" | "invalid-selector" };

export const DEFAULT_SELECTOR = "postern";
/** RFC 6376 §3.1 selectors are dot-separated sub-domains; one label is all a dev key needs. */
const SELECTOR = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** RSA 2048: the size SES itself uses; G2 refuses < 1024 and RFC 8301 wants >= 1024. */
export function generateDkimKey(): { privateKeyPem: string; record: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const der = publicKey.export({ type: "spki", format: "der" }).toString("base64");
  return { privateKeyPem: pem, record: `v=DKIM1; k=rsa; p=${der}` };
}

export function devKeyPath(dir: string, domain: string, selector: string): string {
  return join(dir, "keys", `${domain}.${selector}.pem`);
}

/**
 * Load the key for (domain, selector) or create it, and (re)publish its record in the zone file. The domain and
 * selector become a file name, so they are checked first: `../` in either would write outside `<dir>/keys`.
 */
export function ensureDevKey(
  dir: string,
  zoneFile: string,
  domain: string,
  selector: string = DEFAULT_SELECTOR,
): DevKeyResult {
  const d = domain.toLowerCase();
  const s = selector.toLowerCase();
  if (!domainName.safeParse(d).success) return { ok: false, reason: "invalid-domain" };
  if (!SELECTOR.test(s)) return { ok: false, reason: "invalid-selector" };
  const keyPath = devKeyPath(dir, d, s);
  const dnsName = `${s}._domainkey.${d}`;
  let created = false;
  let privateKeyPem: string;
  let record: string;
  if (existsSync(keyPath)) {
    privateKeyPem = readFileSync(keyPath, "utf8");
    record = recordFor(privateKeyPem);
  } else {
    ({ privateKeyPem, record } = generateDkimKey());
    mkdirSync(join(dir, "keys"), { recursive: true });
    writeFileSync(keyPath, privateKeyPem, { mode: 0o600 });
    created = true;
  }
  setTxtRecord(zoneFile, dnsName, record);
  return { ok: true, created, key: { domain: d, selector: s, privateKeyPem, keyPath, dnsName, record } };
}

function recordFor(privateKeyPem: string): string {
  const der = createPublicKey(privateKeyPem).export({ type: "spki", format: "der" }).toString("base64");
  return `v=DKIM1; k=rsa; p=${der}`;
}
