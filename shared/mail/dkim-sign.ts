import { PosternError } from "../errors.ts";
// DKIM keys and signing for the local stack (`postern dev keys`, `postern dev send`) and the tests.
// Production mail is signed by SES; this signs the mail that plays the outside world locally.

import { generateKeyPair, type KeyObject } from "node:crypto";
import { promisify } from "node:util";
import { dkimSign } from "mailauth/lib/dkim/sign.js";

const generateKeyPairAsync = promisify(generateKeyPair);

export type DkimKeyAlgorithm = "rsa" | "ed25519";
export type DkimKey = { privateKeyPem: string; dnsTxtValue: string };

/** A fresh key pair and its DNS TXT record value (RFC 6376 §3.6.1; RFC 8463 §4 for ed25519). */
export async function generateDkimKey(
  opts: { bits?: number; algorithm?: DkimKeyAlgorithm } = {},
): Promise<DkimKey> {
  const { publicKey, privateKey } =
    opts.algorithm === "ed25519"
      ? await generateKeyPairAsync("ed25519")
      : await generateKeyPairAsync("rsa", { modulusLength: opts.bits ?? 2048 });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    dnsTxtValue: txtValueFor(publicKey, opts.algorithm ?? "rsa"),
  };
}

function txtValueFor(publicKey: KeyObject, algorithm: DkimKeyAlgorithm): string {
  const spki = publicKey.export({ type: "spki", format: "der" });
  // RFC 8463 §4: an ed25519 record carries the bare 32-byte key, not the SPKI structure
  const p = algorithm === "ed25519" ? spki.subarray(spki.length - 32) : spki;
  return `v=DKIM1; k=${algorithm}; p=${p.toString("base64")}`;
}

/** The zone entry (mailauth resolver shape) that publishes `dnsTxtValue` for selector/domain. */
export function zoneRecordFor(
  selector: string,
  domain: string,
  dnsTxtValue: string,
): Record<string, { TXT: string[][] }> {
  // one TXT record, split into strings of at most 255 octets (RFC 1035 §3.3.14)
  const chunks = dnsTxtValue.match(/.{1,255}/g) ?? [""];
  return { [`${selector}._domainkey.${domain}`]: { TXT: [chunks] } };
}

export type SignOptions = {
  domain: string;
  selector: string;
  privateKeyPem: string;
  /** default: from the key (rsa-sha256 or ed25519-sha256); "rsa-sha1" only to test refusals */
  algorithm?: "rsa-sha256" | "rsa-sha1" | "ed25519-sha256";
  /** header fields to sign (h=); default mailauth's list, which includes From */
  headers?: string[];
  /** produces an l= tag: only for testing that the gate refuses it */
  bodyLength?: number;
  canonicalization?: string;
  signTime?: Date;
  expires?: Date;
};

/** `raw` with a DKIM-Signature field prepended. Throws when no signature could be made (a bug). */
export async function signMessage(raw: Buffer | string, opts: SignOptions): Promise<Buffer> {
  const message = typeof raw === "string" ? Buffer.from(raw) : raw;
  const signature = {
    signingDomain: opts.domain,
    selector: opts.selector,
    privateKey: opts.privateKeyPem,
    canonicalization: opts.canonicalization ?? "relaxed/relaxed",
    ...(opts.algorithm === undefined ? {} : { algorithm: opts.algorithm }),
    ...(opts.headers === undefined ? {} : { headerList: opts.headers }),
    ...(opts.bodyLength === undefined ? {} : { maxBodyLength: opts.bodyLength }),
  };
  // mailauth signs nothing unless the key is inside signatureData; its types want the top-level
  // fields as well (TOOLCHAIN.md)
  const result = await dkimSign(message, {
    ...signature,
    signatureData: [signature],
    ...(opts.signTime === undefined ? {} : { signTime: opts.signTime }),
    ...(opts.expires === undefined ? {} : { expires: opts.expires }),
  });
  if (result.errors?.length || !result.signatures) {
    throw new PosternError("dependency-failed", `DKIM signing failed: ${JSON.stringify(result.errors)}`);
  }
  return Buffer.concat([Buffer.from(result.signatures), message]);
}
