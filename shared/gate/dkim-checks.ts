// Our policy on one DKIM signature (G2), applied to mailauth's cryptographic verdict and to the
// signature's tags as written. mailauth's `pass` is not sender proof by itself (DESIGN.md §6):
// it passes l=, rsa-sha1 outside strict mode, keys of any d=, and t=y testing keys.

import { createHash } from "node:crypto";
import type { DKIMResult } from "mailauth";
import { type Fail, fail, type Ok } from "../result.ts";

export type DkimRefusal =
  | "dkim-none"
  | "dkim-misaligned"
  | "dkim-length-limited"
  | "dkim-weak-algorithm"
  | "dkim-from-unsigned"
  | "dkim-temperror"
  | "dkim-body-modified"
  | "dkim-fail"
  | "dkim-policy"
  | "dkim-neutral"
  | "dkim-testing-key"
  | "dkim-weak-key"
  | "dkim-future-timestamp"
  | "dkim-key-multiple"
  | "dkim-error";

export type ProvenSignature = {
  /** sha256 (hex) of the b= value: one signed message, whoever relays it (replay detection) */
  id: string;
  domain: string;
  selector: string;
  algorithm: string;
  keyBits?: number;
  signedHeaders: string[];
};

export type SignatureResult = Ok<{ signature: ProvenSignature }> | Fail<DkimRefusal>;

// RFC 8301 §3.1 (no rsa-sha1) and RFC 8463: the only algorithms we accept
const ACCEPTED_ALGORITHMS = new Set(["rsa-sha256", "ed25519-sha256"]);

/** Tags of a DKIM-Signature value as written (RFC 6376 §3.2), names case-sensitive. */
export function parseTagList(value: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const spec of value.split(";")) {
    const eq = spec.indexOf("=");
    if (eq < 0) continue;
    tags.set(spec.slice(0, eq).trim(), spec.slice(eq + 1).trim());
  }
  return tags;
}

const withoutSpace = (s: string) => s.replace(/\s+/g, "");

/**
 * How far ahead of our clock a signature's t= may be. RFC 6376 §3.5 lets verifiers ignore
 * signatures timestamped in the future; senders' clocks drift, so a few minutes are tolerated,
 * but a t= years ahead is a signature made to be replayed later.
 */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/**
 * The checks that need only the signature's tags as written: a signature that fails one of them
 * can never prove the sender, so it is refused without hashing the body or asking DNS.
 */
export function tagRefusal(
  tags: Map<string, string>,
  fromDomain: string,
  now: Date,
  delegated?: string,
): DkimRefusal | null {
  const d = withoutSpace(tags.get("d") ?? "");
  // exact alignment on the lower-case A-label: a parent or sub-domain d= proves nothing about the
  // From domain. d= is compared as written, never converted: mailauth looks a U-label up under its
  // own conversion, and a mapping (full-width "ｅxample.com", Kelvin sign "\u212a") would align a key
  // we never asked about. Our header fields are latin1 text, so a non-ASCII d= never equals an A-label.
  // The one exception is the signer the operator vouches for, for this From domain only (delegatedSigners,
  // shared/config/delegated-signer.ts), compared the same way.
  if (d.toLowerCase() !== fromDomain && (delegated === undefined || d.toLowerCase() !== delegated))
    return "dkim-misaligned";

  // l= signs only a prefix of the body; anything may be appended after it (RFC 6376 §8.2)
  if ([...tags.keys()].some((name) => name.toLowerCase() === "l")) return "dkim-length-limited";

  // RFC 8301 §3.1 (no rsa-sha1) and RFC 8463
  if (!ACCEPTED_ALGORITHMS.has(signatureAlgorithm(tags))) return "dkim-weak-algorithm";

  // a signature that does not cover From says nothing about the author (RFC 6376 §5.4)
  if (!signedHeaderNames(tags).includes("from")) return "dkim-from-unsigned";

  const t = withoutSpace(tags.get("t") ?? "");
  if (/^[0-9]{1,12}$/.test(t) && Number(t) * 1000 > now.getTime() + MAX_CLOCK_SKEW_MS)
    return "dkim-future-timestamp";
  return null;
}

const signatureAlgorithm = (tags: Map<string, string>) => (tags.get("a") ?? "").trim().toLowerCase();

/** The h= field names, lower-case, in order (RFC 6376 §3.5). */
export function signedHeaderNames(tags: Map<string, string>): string[] {
  return withoutSpace(tags.get("h") ?? "")
    .toLowerCase()
    .split(":")
    .filter((name) => name !== "");
}

export function judgeSignature(
  tags: Map<string, string>,
  result: DKIMResult,
  fromDomain: string,
  minRsaKeyBits: number,
  now: Date = new Date(),
  delegated?: string,
): SignatureResult {
  // the verdict must be about this very signature: its b= is the one we read
  if (withoutSpace(tags.get("b") ?? "") !== withoutSpace(String(result.signature ?? "")))
    return fail("dkim-error");

  const byTags = tagRefusal(tags, fromDomain, now, delegated);
  if (byTags !== null) return fail(byTags);
  // mailauth may also have seen an l= we did not (it reads tag names its own way)
  if (result.canonBodyLengthLimited === true) return fail("dkim-length-limited");

  const status = statusRefusal(result);
  if (status !== null) return fail(status);

  // RFC 6376 §3.6.1 t=y: "Verifiers MUST NOT treat messages from Signers in testing mode
  // differently from unsigned email"
  if (result.status.testing === true) return fail("dkim-testing-key");

  // RFC 8301 §3.2: RSA keys below 1024 bits are factorable; the operator may ask for more
  const algorithm = signatureAlgorithm(tags);
  const keyBits = result.modulusLength;
  if (algorithm.startsWith("rsa-") && (keyBits === undefined || keyBits < minRsaKeyBits)) {
    return fail("dkim-weak-key");
  }

  const signature: ProvenSignature = {
    id: createHash("sha256")
      .update(withoutSpace(tags.get("b") ?? ""))
      .digest("hex"),
    // the signer: the From domain, or the one signer vouched for it (tagRefusal allowed nothing else)
    domain: withoutSpace(tags.get("d") ?? "").toLowerCase(),
    selector: String(result.selector),
    algorithm,
    signedHeaders: signedHeaderNames(tags),
  };
  if (keyBits !== undefined) signature.keyBits = keyBits;
  return { ok: true, signature };
}

// Only an exact "pass" proves anything; every other result, DNS errors included, refuses.
function statusRefusal(result: DKIMResult): DkimRefusal | null {
  switch (result.status.result) {
    case "pass":
      return null;
    case "temperror":
    case "temperr":
      return "dkim-temperror";
    case "fail":
      return result.bodyHash !== result.bodyHashExpecting ? "dkim-body-modified" : "dkim-fail";
    case "policy":
      return "dkim-policy";
    case "neutral":
      return "dkim-neutral";
    case "none":
      return "dkim-none";
    default:
      return "dkim-error";
  }
}

// When no signature proves the sender, the refusal names the nearest miss: a DNS failure first
// (the one an operator can retry), then the signature that got furthest through the checks above.
const PRIORITY: DkimRefusal[] = [
  "dkim-temperror",
  "dkim-key-multiple",
  "dkim-weak-key",
  "dkim-testing-key",
  "dkim-body-modified",
  "dkim-fail",
  "dkim-policy",
  "dkim-neutral",
  "dkim-error",
  "dkim-future-timestamp",
  "dkim-from-unsigned",
  "dkim-weak-algorithm",
  "dkim-length-limited",
  "dkim-misaligned",
  "dkim-none",
];

export function nearestMiss(reasons: readonly DkimRefusal[]): DkimRefusal {
  return PRIORITY.find((reason) => reasons.includes(reason)) ?? "dkim-none";
}
