// Sender proof by ARC (RFC 8617, G2), for mail whose author signature a list or a forwarder broke.
//
// A list that tags the Subject or adds a footer breaks the author's DKIM signature; a forwarding rule re-delivers
// mail signed for someone else. Both seal what they received: an ARC set records the verdict they saw (the
// ARC-Authentication-Results) and signs it with the message (ARC-Message-Signature) and the chain so far
// (ARC-Seal). A seal proves only who sealed and that nothing changed since; what the AAR says is the sealer's word.
// So a chain proves the author only when the operator trusts the word of EVERY sealer in it, not just the newest:
// - the From domain's pass is read from the first set's AAR (arc.i=1), written by the first sealer, and must be
//   about an author signature still in the mail that our own policy accepts by its tags (no l=, no rsa-sha1, ...);
// - RFC 8617 §5.2 verifies only the newest ARC-Message-Signature. An untrusted sealer in the middle may rewrite
//   the mail, sign its version and seal cv=pass; a trusted sealer after it then truthfully reports a valid chain.
// Anything short of that refuses, naming the newest sealer whose word we would have needed (proven: every seal
// verified before it is named).
//
// Cost is bounded like DKIM's (sender-proof.ts): the ARC fields are counted on our own reading first, at most
// MAX_ARC_SETS sets are evaluated, and keys are looked up together through the bounded resolver, at most one per
// seal and one for the newest ARC-Message-Signature, all within one deadline. Only one body hash is computed.

import { createHash } from "node:crypto";
import type { DNSResolver } from "mailauth";
import { arc } from "mailauth/lib/arc/index.js";
import { type Fail, fail, type Ok } from "../result.ts";
import { boundedResolver, KEY_RECORDS_AMBIGUOUS } from "./bounded-resolver.ts";
import { type BoundedArcVerify, boundedArcVerify } from "./dkim-bounded-verify.ts";
import { type ProvenSignature, parseTagList, signedHeaderNames, tagRefusal } from "./dkim-checks.ts";
import { type HeaderField, sameFields } from "./header-block.ts";

export type ArcRefusal =
  | "arc-fail" // the chain does not validate (a seal, the newest message signature, cv=, structure, key size)
  | "arc-temperror" // a key lookup failed, timed out or was over the cap: a DNS error never accepts
  | "arc-too-many-sets" // more ARC sets than MAX_ARC_SETS: refused on the count, before any lookup
  | "arc-untrusted-sealer" // the chain validates, but a sealer in it is not trusted; `detail` names it
  | "arc-no-author-pass" // the first sealer did not record a DKIM pass for the From domain
  | "arc-from-unsigned" // the newest ARC-Message-Signature does not cover From, or signs only part of the body (l=)
  | "header-ambiguous"; // mailauth read the header section differently from us

export type ArcProof =
  | Ok<{
      /** The newest sealer's domain (the forwarder that delivered to us). */
      sealer: string;
      /** ARC sets in the chain. */
      instances: number;
      /** The newest ARC-Message-Signature, as the replay key and the signed-fields list (see `signatureOf`). */
      signature: ProvenSignature;
    }>
  | Fail<ArcRefusal>;

export interface ArcProofOptions {
  readonly resolver: DNSResolver;
  readonly now: Date;
  readonly minRsaKeyBits: number;
  /** Sealer domains whose word is trusted (lower-case A-labels, exact). */
  readonly trustedSealers: readonly string[];
  readonly keyLookupTimeoutMs: number;
  readonly verify?: BoundedArcVerify;
}

/**
 * ARC sets evaluated at most. A Google Group forwarded by a Gmail rule carries two; Microsoft 365 adds one per
 * internal hop (three or four are common). RFC 8617 allows 50, which would be 51 key lookups on the sender's say-so.
 */
export const MAX_ARC_SETS = 8;

const ARC_FIELDS = ["arc-seal", "arc-message-signature", "arc-authentication-results"] as const;

/**
 * The author proven by the ARC chain, null when the message carries no ARC field (the DKIM refusal then stands).
 * `fromDomain` is the From domain as our own parser proved it (lower-case A-label).
 */
export async function proveByArc(
  raw: Buffer,
  fields: readonly HeaderField[],
  fromDomain: string,
  opts: ArcProofOptions,
): Promise<ArcProof | null> {
  const counts = ARC_FIELDS.map((name) => fields.filter((f) => f.name === name).length);
  if (counts.every((n) => n === 0)) return null;
  // counted on our own reading, before mailauth parses a tag: a flood costs one pass over the field names
  if (counts.some((n) => n > MAX_ARC_SETS)) return fail("arc-too-many-sets");
  const seals = counts[0] ?? 0;

  const failedLookups: string[] = [];
  const dns = boundedResolver(opts.resolver, {
    // one key per seal and one for the newest message signature; a lookup past the cap fails as a temperror
    maxLookups: seals + 1,
    timeoutMs: opts.keyLookupTimeoutMs,
    deadline: Date.now() + opts.keyLookupTimeoutMs,
  });
  // every failed lookup is recorded (the inner resolver's, a timeout, one over the cap), to tell DNS from forgery
  const resolve: DNSResolver = (name, rrtype) =>
    dns.resolve(name, rrtype).catch((err: unknown) => {
      failedLookups.push(errorCode(err));
      throw err;
    });
  const verify = opts.verify ?? boundedArcVerify;
  const verification = await verify(raw, {
    resolver: resolve,
    curTime: opts.now,
    strict: true,
    minBitLength: opts.minRsaKeyBits,
  });
  if (!sameFields(fields, verification.headers ? verification.headers.parsed : undefined))
    return fail("header-ambiguous");
  const chain = verification.arc.chain;
  if (verification.arc.error !== undefined || !Array.isArray(chain) || chain.length === 0)
    return fail("arc-fail");

  // read before arc() runs: it rewrites the newest set's parsed AAR in place (for a one-set chain, this one)
  const authorPassed = firstHopPassed(
    chain[0]?.["arc-authentication-results"]?.parsed,
    fromDomain,
    authorSignatures(fields, fromDomain, opts.now),
  );
  const sealers = chain.map((set) => sealerOf(set["arc-seal"]?.parsed));

  const result = await arc(verification.arc, {
    resolver: resolve,
    strict: true,
    minBitLength: opts.minRsaKeyBits,
  });
  if (result.status.result !== "pass")
    return fail(failedLookups.some(isTemporary) ? "arc-temperror" : "arc-fail");

  // every seal verified, so every sealer named here is proven; the newest untrusted one is the one to name
  const untrusted = [...sealers].reverse().find((d) => d === null || !opts.trustedSealers.includes(d));
  if (untrusted !== undefined)
    return untrusted === null ? fail("arc-fail") : fail("arc-untrusted-sealer", untrusted);

  const ams = newestMessageSignature(fields, chain.length);
  if (ams === undefined || result.signature === false || result.signature === undefined)
    return fail("arc-fail");
  const tags = parseTagList(ams.value);
  // the verdict must be about this very field: its b= is the one we read
  if (withoutSpace(tags.get("b") ?? "") !== withoutSpace(String(result.signature.signature ?? "")))
    return fail("arc-fail");
  // the same two rules as for the author's signature (dkim-checks.ts): From signed, the whole body signed
  if (!signedHeaderNames(tags).includes("from")) return fail("arc-from-unsigned");
  if ([...tags.keys()].some((name) => name.toLowerCase() === "l") || result.signature.canonBodyLengthLimited)
    return fail("arc-from-unsigned");
  if (!authorPassed) return fail("arc-no-author-pass");

  const sealer = sealers.at(-1);
  if (sealer === undefined || sealer === null) return fail("arc-fail");
  return { ok: true, sealer, instances: chain.length, signature: signatureOf(tags, result.signature) };
}

// The replay key is the newest ARC-Message-Signature's b=: it is the one signature over this body and these
// header fields that was verified, and the seals commit to it, so nobody but the sealer can mint another. The
// author's own b= is still in the mail, but it no longer verifies: anyone could copy it into a mail of their own.
function signatureOf(
  tags: Map<string, string>,
  result: { selector?: string | undefined; modulusLength?: number | undefined; signingDomain?: string },
): ProvenSignature {
  const signature: ProvenSignature = {
    id: createHash("sha256")
      .update(withoutSpace(tags.get("b") ?? ""))
      .digest("hex"),
    domain: withoutSpace(tags.get("d") ?? "").toLowerCase(),
    selector: String(result.selector ?? ""),
    algorithm: withoutSpace(tags.get("a") ?? "").toLowerCase(),
    signedHeaders: signedHeaderNames(tags),
  };
  if (result.modulusLength !== undefined) signature.keyBits = result.modulusLength;
  return signature;
}

/** The ARC-Message-Signature of instance `i`, on our own reading. */
function newestMessageSignature(fields: readonly HeaderField[], i: number): HeaderField | undefined {
  return fields.find(
    (f) =>
      f.name === "arc-message-signature" && withoutSpace(parseTagList(f.value).get("i") ?? "") === String(i),
  );
}

type Parsed = Record<string, unknown> | undefined;

/** A seal's d=, lower-case, or null when it is not a plain domain name. */
function sealerOf(parsed: Parsed): string | null {
  const d = tagValue(parsed?.d);
  if (typeof d !== "string") return null;
  const domain = d.trim().toLowerCase();
  return /^[a-z0-9.-]{1,253}$/.test(domain) ? domain : null;
}

/** The author's DKIM-Signature fields our policy would accept by their tags (dkim-checks.ts `tagRefusal`). */
export interface AuthorSignature {
  readonly selector: string;
  /** b= without white space */
  readonly b: string;
}

/**
 * Whether the first sealer recorded a DKIM pass whose signing domain IS the From domain (`header.d`, or the domain
 * of `header.i` when there is no `header.d`: RFC 8601 §2.7.1 lets a verifier report either), for a signature still
 * in the mail that our own policy accepts by its tags: a sealer's verifier may pass `l=`, rsa-sha1 or a testing
 * key, which our policy refuses. The result names its signature by `header.s` and `header.b` (a prefix of b=) when
 * it gives them; given, they must match.
 */
export function firstHopPassed(
  parsed: Parsed,
  fromDomain: string,
  author: readonly AuthorSignature[],
): boolean {
  const dkim = parsed?.dkim;
  if (!Array.isArray(dkim)) return false;
  return dkim.some((entry: unknown) => {
    if (typeof entry !== "object" || entry === null) return false;
    const e = entry as { value?: unknown; header?: { d?: unknown; i?: unknown; s?: unknown; b?: unknown } };
    if (typeof e.value !== "string" || e.value.toLowerCase() !== "pass") return false;
    const d = e.header?.d;
    const i = e.header?.i;
    const domain =
      typeof d === "string"
        ? d
        : typeof i === "string" && i.includes("@")
          ? i.slice(i.lastIndexOf("@") + 1)
          : null;
    if (domain === null || domain.trim().toLowerCase() !== fromDomain) return false;
    const s = e.header?.s;
    const b = e.header?.b;
    return author.some(
      (sig) =>
        (s === undefined ||
          (typeof s === "string" && s.trim().toLowerCase() === sig.selector.toLowerCase())) &&
        (b === undefined || (typeof b === "string" && b.trim() !== "" && sig.b.startsWith(b.trim()))),
    );
  });
}

/** The author's signatures our policy accepts by their tags alone: aligned d=, sha256, no l=, From signed, t=. */
function authorSignatures(fields: readonly HeaderField[], fromDomain: string, now: Date): AuthorSignature[] {
  const found: AuthorSignature[] = [];
  for (const f of fields) {
    if (f.name !== "dkim-signature") continue;
    const tags = parseTagList(f.value);
    if (tagRefusal(tags, fromDomain, now) !== null) continue;
    found.push({ selector: withoutSpace(tags.get("s") ?? ""), b: withoutSpace(tags.get("b") ?? "") });
    // a flood of them costs a tag parse each, like DKIM's own choice; a few are enough to match the result
    if (found.length >= MAX_ARC_SETS) break;
  }
  return found;
}

const tagValue = (tag: unknown): unknown =>
  typeof tag === "object" && tag !== null && "value" in tag ? (tag as { value: unknown }).value : undefined;

const withoutSpace = (s: string) => s.replace(/\s+/g, "");

function errorCode(err: unknown): string {
  return typeof err === "object" && err !== null && "code" in err
    ? String((err as { code: unknown }).code)
    : "";
}

// no such key (ENOTFOUND, ENODATA) and a selector with two keys are answers: the seal fails. Everything else,
// a timeout or a lookup over the cap included, is the DNS failing us
const ANSWERS = new Set(["ENOTFOUND", "ENODATA", KEY_RECORDS_AMBIGUOUS]);
const isTemporary = (code: string) => !ANSWERS.has(code);
