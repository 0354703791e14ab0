// mailauth's DKIM verification, limited to the signatures we choose (G2's bounded cost).
//
// mailauth evaluates every DKIM-Signature field a message carries: each one with its own l=,
// canonicalization or hash adds a pass over the whole body, and each one with its own selector
// adds a key lookup, made one after another. A sender can write thousands of fields, so an
// unbounded verifier is a lever on our time (3,000 fields took 54 s of a 60 s budget).
// We hand mailauth a view of the header section that holds only the chosen DKIM-Signature fields
// (and no ARC set, whose verdict we never use), then put the whole header section back, so each
// chosen signature is still verified over exactly the fields its h= names, including other
// DKIM-Signature fields it may sign. Their key lookups start together, not one after another.
//
// The message is fed to mailauth in chunks that end after a line break (writeLines below): mailauth's relaxed
// body canonicalization keeps the unfinished line of a chunk and concatenates it with the next chunk, so one long
// line cost time and memory quadratic in its length (a 9.8 MB single-line body: 2.9 s and +164 MB peak).

import type { Writable } from "node:stream";
import type { ARCData, DKIMResult, DKIMVerifyOptions, DKIMVerifyResult } from "mailauth";
import { DkimVerifier, type ParsedHeaders } from "mailauth/lib/dkim/dkim-verifier.js";

/** Which DKIM-Signature fields to evaluate, by their index among the message's DKIM-Signature fields. */
export type SignatureSelection = ReadonlySet<number>;

export type BoundedVerify = (
  raw: Buffer,
  options: DKIMVerifyOptions,
  selection: SignatureSelection,
) => Promise<DKIMVerifyResult>;

// ARC-Seal, ARC-Message-Signature, ARC-Authentication-Results (RFC 8617 §4.1)
const isArcField = (key: string) => key.startsWith("arc-");

class SelectiveDkimVerifier extends DkimVerifier {
  readonly #selection: SignatureSelection;

  constructor(options: DKIMVerifyOptions, selection: SignatureSelection) {
    super(options);
    this.#selection = selection;
  }

  override async messageHeaders(headers: ParsedHeaders): Promise<void> {
    let index = -1;
    const parsed = headers.parsed.filter((h) => {
      if (h.key !== "dkim-signature") return !isArcField(h.key);
      index++;
      return this.#selection.has(index);
    });
    await super.messageHeaders({ ...headers, parsed });
    // Signed header lines are taken from the real header section, never from the view.
    this.headers = headers;
    this.#prefetchKeys();
  }

  // mailauth looks keys up one signature at a time; asking for them all now makes a slow DNS
  // server cost one timeout, not one per signature. Same arguments as its own lookup, so the
  // lookup it makes later is answered from its cache.
  #prefetchKeys(): void {
    for (const s of this.signatureHeaders) {
      if (s.type !== "DKIM" || s.skip || s.invalid) continue;
      this.keyCache
        .get(s.type, `${s.selector}._domainkey.${s.signingDomain}`, this.minBitLength, {
          strict: this.strict,
          hashAlgo: s.hashAlgo,
        })
        .catch(() => undefined);
    }
  }
}

/** Chunks of mailauth's own size (writeToStream's 64 KB), each stretched to end right after a LF. */
export const CHUNK_BYTES = 64 * 1024;

/**
 * mailauth's writeToStream (lib/tools.js), except where a chunk ends: one chunk at a time, the next after
 * setImmediate or `drain`, so DNS answers are still read between chunks; a chunk ends after the first LF at or
 * past CHUNK_BYTES (or at the end), so no line is ever split between two chunks. A line longer than CHUNK_BYTES
 * is one chunk of its own: its cost is linear in its length.
 */
export function writeLines(stream: Writable, input: Buffer, chunkBytes = CHUNK_BYTES): Promise<void> {
  return new Promise((resolve, reject) => {
    let pos = 0;
    const writeChunk = (): void => {
      if (pos >= input.length) {
        stream.end();
        return;
      }
      const lf = input.indexOf(0x0a, Math.min(pos + chunkBytes, input.length) - 1);
      const end = lf < 0 ? input.length : lf + 1;
      const chunk = input.subarray(pos, end);
      pos = end;
      if (stream.write(chunk) === false) stream.once("drain", writeChunk);
      else setImmediate(writeChunk);
    };
    setImmediate(writeChunk);
    stream.on("end", resolve);
    stream.on("finish", resolve);
    stream.on("error", reject);
  });
}

/** mailauth's `dkimVerify`, evaluating only the selected DKIM-Signature fields (results in header order). */
export const boundedDkimVerify: BoundedVerify = async (raw, options, selection) => {
  const verifier = new SelectiveDkimVerifier(options, selection);
  await writeLines(verifier, raw);
  const result: DKIMVerifyResult = {
    headerFrom: verifier.headerFrom,
    fromFields: verifier.fromFields,
    envelopeFrom: verifier.envelopeFrom,
    results: verifier.results,
  };
  if (verifier.headers)
    Object.defineProperty(result, "headers", { value: verifier.headers, enumerable: false });
  return result;
};

/** What the ARC-only pass read: the newest ARC-Message-Signature's result and the chain mailauth parsed. */
export interface ArcVerification {
  /** At most one result: the newest ARC-Message-Signature's (mailauth verifies no older one, RFC 8617 §5.2). */
  readonly results: readonly DKIMResult[];
  readonly arc: ARCData;
  readonly headers: ParsedHeaders | false;
}

export type BoundedArcVerify = (raw: Buffer, options: DKIMVerifyOptions) => Promise<ArcVerification>;

/**
 * The ARC half (arc-proof.ts): no DKIM-Signature is evaluated (the author's signature already failed, and a flood of
 * them must cost nothing here), the ARC sets stay in view, so mailauth parses the chain and verifies the newest
 * ARC-Message-Signature: one body hash and one key lookup. As above, signed lines come from the real header section,
 * so an ARC-Message-Signature that signs DKIM-Signature fields (Google's do) still verifies.
 */
class ArcOnlyVerifier extends DkimVerifier {
  override async messageHeaders(headers: ParsedHeaders): Promise<void> {
    const parsed = headers.parsed.filter((h) => h.key !== "dkim-signature");
    await super.messageHeaders({ ...headers, parsed });
    this.headers = headers;
  }
}

export const boundedArcVerify: BoundedArcVerify = async (raw, options) => {
  const verifier = new ArcOnlyVerifier(options);
  await writeLines(verifier, raw);
  return { results: verifier.results, arc: verifier.arc, headers: verifier.headers };
};
