// mailauth 7 ships types for its public entry points only. The bounded DKIM verifier
// (shared/gate/dkim-bounded-verify.ts) extends its DkimVerifier to choose which signatures are
// evaluated; only what that subclass touches is declared here. mailauth is pinned exactly, and
// test/unit/gate/dkim-bounded-verify.test.ts holds the subclass to mailauth's own dkimVerify on the corpora.
declare module "mailauth/lib/dkim/dkim-verifier.js" {
  import type { Writable } from "node:stream";
  import type { ARCData, DKIMResult, DKIMVerifyOptions } from "mailauth";

  export interface ParsedHeaderLine {
    key: string;
    casedKey: string;
    line: Buffer;
  }
  export interface ParsedHeaders {
    parsed: ParsedHeaderLine[];
    original: Buffer;
  }
  export interface SignatureHeader {
    type: "DKIM" | "ARC";
    skip?: string;
    invalid?: string;
    selector: string;
    signingDomain: string;
    hashAlgo: string;
  }
  export interface KeyCache {
    get(type: string, name: string, minBitLength: number | undefined, options: object): Promise<unknown>;
  }

  export class DkimVerifier extends Writable {
    constructor(options: DKIMVerifyOptions);
    headers: ParsedHeaders | false;
    results: DKIMResult[];
    headerFrom: string[];
    fromFields: number;
    envelopeFrom: string | false;
    signatureHeaders: SignatureHeader[];
    keyCache: KeyCache;
    /** The ARC chain read from the header section (arc-proof.ts), with its hidden keyCache. */
    arc: ARCData;
    minBitLength: number | undefined;
    strict: boolean;
    messageHeaders(headers: ParsedHeaders): Promise<void>;
  }
}
