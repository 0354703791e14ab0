// Sender proof (G2): who wrote this mail, proven by DKIM, or a refusal with a stable code.
//
// No single-instance field twice (single-instance.ts), exactly one From field holding one plain
// address (address.ts), and a DKIM
// signature (mailauth, strict mode) that passes our policy (dkim-checks.ts). We never read
// Authentication-Results or any verdict SES or the sender put in the header: only the raw bytes,
// the DNS answers and the clock decide.
//
// Its cost is bounded whatever the sender writes: only signatures that could prove this From
// (aligned d=, an accepted algorithm, no l=, From signed, t= not in the future) are evaluated, at
// most `maxSignatures` of them, the topmost first (a relay adds its signature above the author's);
// their keys are looked up together, each within `keyLookupTimeoutMs`, at most one per signature.
//
// Only when the author's own signature fails, and the operator trusts at least one ARC sealer, is the ARC chain
// evaluated (arc-proof.ts): what a trusted list or forwarder recorded may stand in for the signature it broke. It
// proves the author, never whom the author addressed (signedRecipients is empty), and says so in `via`.

import type { DKIMResult, DKIMVerifyResult, DNSResolver } from "mailauth";
import { type Fail, fail, type Ok } from "../result.ts";
import { type AddressRefusal, parseFromHeader, reduceToAddressChars, routingKey } from "./address.ts";
import { type ArcRefusal, proveByArc } from "./arc-proof.ts";
import { boundedResolver } from "./bounded-resolver.ts";
import { type BoundedVerify, boundedDkimVerify } from "./dkim-bounded-verify.ts";
import {
  type DkimRefusal,
  judgeSignature,
  nearestMiss,
  type ProvenSignature,
  parseTagList,
  tagRefusal,
} from "./dkim-checks.ts";
import { type HeaderField, headerValueAsUtf8, readHeaderBlock, sameFields } from "./header-block.ts";
import { misalignedDetail } from "./misaligned-detail.ts";
import { type SignedRecipients, signedRecipients } from "./signed-recipients.ts";
import { duplicatedField } from "./single-instance.ts";

export type SenderRefusal =
  | "header-malformed" // a header line that is neither a field nor a fold, a lone CR or NUL
  | "header-ambiguous" // mailauth read the header section differently from us
  | "header-duplicated" // a single-instance field (RFC 5322 §3.6) twice; `detail` names it
  | "from-missing"
  | "from-not-utf8"
  | AddressRefusal
  | DkimRefusal
  | ArcRefusal
  | "sender-proof-error"; // an exception inside verification: fail closed

/** What proved the author: the author's own DKIM signature, or an ARC chain of trusted sealers (arc-proof.ts). */
export type ProofVia =
  /** `delegated`: the signer domain the operator vouches for this From domain (senderProof.delegatedSigners). */
  | { readonly kind: "dkim"; readonly delegated?: string }
  | { readonly kind: "arc"; readonly sealer: string; readonly instances: number };

export type SenderProof =
  | Ok<{
      address: string;
      routingKey: string;
      domain: string;
      displayName: string;
      signature: ProvenSignature;
      /** The To and Cc addresses the proven signature covers (who the signer addressed); empty for ARC. */
      signedRecipients: SignedRecipients;
      via: ProofVia;
    }>
  /** `address`: the From address reduced to address characters, for the refusal line (G4), or null. */
  | Fail<SenderRefusal, { address: string | null }>;

export type ProveSenderOptions = {
  resolver: DNSResolver;
  now: Date;
  minRsaKeyBits: number;
  allowNonAsciiLocalParts: boolean;
  /** Signatures evaluated at most (default 3). */
  maxSignatures?: number;
  /** Each key lookup's deadline, and the longest the proof waits on DNS in all (default 2000). */
  keyLookupTimeoutMs?: number;
  /** the DKIM verifier; mailauth's unless a test needs to see how disagreement with it is handled */
  verify?: BoundedVerify;
  /** ARC sealers whose word may stand in for a broken author signature (none: ARC is never evaluated). */
  trustedArcSealers?: readonly string[];
  /** Per From domain, the one signer domain the operator vouches for (validated by the config schema). */
  delegatedSigners?: Readonly<Record<string, string>>;
};

export const DEFAULT_MAX_SIGNATURES = 3;
export const DEFAULT_KEY_LOOKUP_TIMEOUT_MS = 2000;

export async function proveSender(raw: Buffer, opts: ProveSenderOptions): Promise<SenderProof> {
  let address: string | null = null;
  const refuse = (reason: SenderRefusal, detail?: string): SenderProof => ({
    ...fail(reason, detail),
    address,
  });
  try {
    const block = readHeaderBlock(raw);
    if (!block.ok) return refuse(block.reason);
    // the cheap stage: one pass over the field names, before any address is parsed or key looked up
    const duplicated = duplicatedField(block.fields);
    if (duplicated !== null) return refuse("header-duplicated", duplicated);
    const from = singleFrom(block.fields);
    if (!from.ok) return refuse(from.reason);
    address = refusalAddress(from.value);

    const parsed = parseFromHeader(from.value, { allowNonAsciiLocalParts: opts.allowNonAsciiLocalParts });
    if (!parsed.ok) return refuse(parsed.reason);
    const author = parsed.address;
    address = reduceToAddressChars(author.address);

    const proven = {
      address: author.address,
      routingKey: routingKey(author.address),
      domain: author.domain,
      displayName: author.displayName,
    };

    const proving = await proveByDkim(raw, block.fields, author.domain, opts);
    if (proving.ok)
      return {
        ok: true,
        ...proven,
        signature: proving.signature,
        signedRecipients: signedRecipients(proving.result.signingHeaders?.headers ?? [], {
          allowNonAsciiLocalParts: opts.allowNonAsciiLocalParts,
        }),
        via:
          proving.signature.domain === author.domain
            ? { kind: "dkim" }
            : { kind: "dkim", delegated: proving.signature.domain },
      };
    const trustedSealers = opts.trustedArcSealers ?? [];
    if (proving.reason === "header-ambiguous" || trustedSealers.length === 0)
      return refuse(proving.reason, proving.detail);

    const byArc = await proveByArc(raw, block.fields, author.domain, {
      resolver: opts.resolver,
      now: opts.now,
      minRsaKeyBits: opts.minRsaKeyBits,
      trustedSealers,
      keyLookupTimeoutMs: opts.keyLookupTimeoutMs ?? DEFAULT_KEY_LOOKUP_TIMEOUT_MS,
    });
    // no ARC field at all: the author's own refusal stands
    if (byArc === null) return refuse(proving.reason, proving.detail);
    if (!byArc.ok) return refuse(byArc.reason, byArc.detail);
    return {
      ok: true,
      ...proven,
      signature: byArc.signature,
      // the seal proves who wrote the mail, not whom they wrote to: the forwarder's delivery addressed the agent
      signedRecipients: { to: [], cc: [], refused: [] },
      via: { kind: "arc", sealer: byArc.sealer, instances: byArc.instances },
    };
  } catch {
    // a verifier that throws has proven nothing
    return refuse("sender-proof-error");
  }
}

/** The author's own DKIM signature: the first chosen signature that passes our policy, or the nearest miss. */
async function proveByDkim(
  raw: Buffer,
  fields: readonly HeaderField[],
  fromDomain: string,
  opts: ProveSenderOptions,
): Promise<Ok<{ signature: ProvenSignature; result: DKIMResult }> | Fail<DkimRefusal | "header-ambiguous">> {
  const signatureFields = fields.filter((f) => f.name === "dkim-signature");
  if (signatureFields.length === 0) return fail("dkim-none");
  const candidates = chooseSignatures(signatureFields, fromDomain, opts);
  const refused = (reason: DkimRefusal): Fail<DkimRefusal> =>
    reason === "dkim-misaligned" && candidates.misalignedSigner !== null
      ? fail(reason, misalignedDetail(candidates.misalignedSigner, fromDomain))
      : fail(reason);
  if (candidates.chosen.length === 0) return refused(nearestMiss(candidates.reasons));

  const verified = await verifyChosen(raw, candidates.chosen, opts);
  const { verification } = verified;
  if (!sameFields(fields, verification.headers?.parsed)) return fail("header-ambiguous");
  // strict mode reports every evaluated DKIM-Signature, in order: anything else and we cannot pair them
  if (verification.results.length !== candidates.chosen.length) return fail("dkim-error");

  const proving = firstProvingSignature(candidates, signatureFields, verified, fromDomain, opts);
  return proving.ok ? proving : refused(proving.reason);
}

/**
 * The From field, readable as UTF-8. Counted on our own reading (a second one was refused as duplicated):
 * postal-mime shows the top From while DKIM verifies the bottom one.
 */
function singleFrom(
  fields: readonly HeaderField[],
): Ok<{ value: string }> | Fail<"from-missing" | "from-not-utf8"> {
  const from = fields.find((f) => f.name === "from");
  if (from === undefined) return fail("from-missing");
  const value = headerValueAsUtf8(from.value);
  if (value === null) return fail("from-not-utf8");
  return { ok: true, value };
}

/** The DKIM-Signature fields worth verifying, by index, and why each other one could not prove this From. */
interface Candidates {
  readonly chosen: readonly number[];
  readonly reasons: readonly DkimRefusal[];
  /** The d= of the topmost signature refused as misaligned, to name in the refusal; null when none was. */
  readonly misalignedSigner: string | null;
}

/**
 * Only signatures that could prove this From are worth a body hash and a key lookup (their tags alone decide:
 * dkim-checks.ts), and at most `maxSignatures` of them, the topmost first.
 */
function chooseSignatures(
  signatureFields: readonly HeaderField[],
  fromDomain: string,
  opts: ProveSenderOptions,
): Candidates {
  const reasons: DkimRefusal[] = [];
  const chosen: number[] = [];
  let misalignedSigner: string | null = null;
  const maxSignatures = opts.maxSignatures ?? DEFAULT_MAX_SIGNATURES;
  const delegated = delegatedSigner(opts.delegatedSigners, fromDomain);
  for (const [i, field] of signatureFields.entries()) {
    const tags = parseTagList(field.value);
    const byTags = tagRefusal(tags, fromDomain, opts.now, delegated);
    if (byTags === "dkim-misaligned") misalignedSigner ??= tags.get("d") ?? null;
    if (byTags !== null) reasons.push(byTags);
    else if (chosen.length < maxSignatures) chosen.push(i);
  }
  return { chosen, reasons, misalignedSigner };
}

/**
 * mailauth's strict verification of the chosen signatures only, over DNS bounded to one lookup per signature,
 * each within the timeout and all within one deadline (bounded-resolver.ts).
 */
async function verifyChosen(
  raw: Buffer,
  chosen: readonly number[],
  opts: ProveSenderOptions,
): Promise<Verified> {
  const timeoutMs = opts.keyLookupTimeoutMs ?? DEFAULT_KEY_LOOKUP_TIMEOUT_MS;
  const dns = boundedResolver(opts.resolver, {
    maxLookups: chosen.length,
    timeoutMs,
    deadline: Date.now() + timeoutMs,
  });
  const verify = opts.verify ?? boundedDkimVerify;
  const verification = await verify(
    raw,
    {
      resolver: dns.resolve,
      curTime: opts.now,
      strict: true,
      // we check key size ourselves (dkim-checks.ts), so mailauth must report modulusLength
      // instead of hiding a short key behind its own floor
      minBitLength: 1,
    },
    new Set(chosen),
  );
  return { verification, ambiguousKeys: dns.ambiguous };
}

interface Verified {
  /** mailauth's result; its `headers` (how it read the header section) is not enumerable: never spread it. */
  readonly verification: DKIMVerifyResult;
  /** Key names that answered with more than one TXT record (bounded-resolver.ts). */
  readonly ambiguousKeys: ReadonlySet<string>;
}

/**
 * The first chosen signature, topmost first, that passes our policy (dkim-checks.ts) proves the From; a key
 * published more than once proves nothing. Otherwise the nearest miss of every refusal, the tag checks' too.
 */
function firstProvingSignature(
  candidates: Candidates,
  signatureFields: readonly HeaderField[],
  { verification, ambiguousKeys }: Verified,
  fromDomain: string,
  opts: ProveSenderOptions,
): Ok<{ signature: ProvenSignature; result: DKIMResult }> | Fail<DkimRefusal> {
  const reasons = [...candidates.reasons];
  for (const [k, i] of candidates.chosen.entries()) {
    const result = verification.results[k];
    const field = signatureFields[i];
    if (result === undefined || field === undefined) return fail("dkim-error");
    if (ambiguousKeys.has(keyName(result))) {
      reasons.push("dkim-key-multiple");
      continue;
    }
    const verdict = judgeSignature(
      parseTagList(field.value),
      result,
      fromDomain,
      opts.minRsaKeyBits,
      opts.now,
      delegatedSigner(opts.delegatedSigners, fromDomain),
    );
    if (verdict.ok) return { ok: true, signature: verdict.signature, result };
    reasons.push(verdict.reason);
  }
  return fail(nearestMiss(reasons));
}
/** The signer vouched for this From domain, if any (own keys only: a From domain named `constructor` is no key). */
function delegatedSigner(
  map: Readonly<Record<string, string>> | undefined,
  fromDomain: string,
): string | undefined {
  return map !== undefined && Object.hasOwn(map, fromDomain) ? map[fromDomain] : undefined;
}

const keyName = (r: DKIMResult) =>
  `${r.selector}._domainkey.${r.signingDomain}`.toLowerCase().replace(/\.$/, "");

// For the refusal line of an unparseable From: the part inside the last <...> if any, so the
// display name is not part of it (G4), reduced to address characters; null when no "@" is left
// (a display-name-only From would otherwise put the display name on the refusal line).
function refusalAddress(value: string): string | null {
  const open = value.lastIndexOf("<");
  const close = value.indexOf(">", open);
  const reduced = reduceToAddressChars(open >= 0 && close > open ? value.slice(open + 1, close) : value);
  return reduced.includes("@") ? reduced : null;
}
