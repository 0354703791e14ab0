import { createHash } from "node:crypto";
import type { DKIMVerifyResult } from "mailauth";
import { stubCalls } from "../../infra/bundle-stubs/unreachable.ts";
import { attachmentLimits } from "../../shared/config/schema.ts";
import { boundedDkimVerify } from "../../shared/gate/dkim-bounded-verify.ts";
import { proveSender } from "../../shared/gate/sender-proof.ts";
import { freshText } from "../../shared/mail/fresh-text.ts";
import { parseMail } from "../../shared/mail/parse.ts";
import { type Zone, zoneResolver } from "../../shared/runtime/zone-resolver.ts";

/**
 * The verify path's mail handling as one entry point: sender proof (with mailauth's full DKIM results), bounded
 * parsing and fresh-text reading. test/infra/verify-bundle.test.ts bundles this file exactly as the verify
 * function is bundled (its stubs included) and runs it in a fresh process, and also calls it unbundled, and
 * compares the two.
 */

export type ProbeJob =
  | {
      readonly kind: "prove";
      /** base64 */
      readonly raw: string;
      readonly zone: Zone;
      readonly now: string;
      readonly minRsaKeyBits?: number;
    }
  | { readonly kind: "parse"; readonly raw: string }
  | { readonly kind: "fresh"; readonly text: string | null; readonly html: string | null };

export interface ProbeResult {
  readonly result: unknown;
  /** Stubs called while this job ran (infra/bundle-stubs/unreachable.ts); always empty unbundled. */
  readonly stubCalls: readonly string[];
}

const limits = attachmentLimits.parse({});

/**
 * Results as plain JSON, bytes as their digest, so both sides compare with deep equality; mailauth ids a signature
 * without a usable b= with a random UUID.
 */
function plain(value: unknown): unknown {
  const json = JSON.stringify(value, function (this: unknown, key, v) {
    const own = (this as Record<string, unknown>)[key];
    if (own instanceof Uint8Array || own instanceof ArrayBuffer)
      return `sha256:${createHash("sha256")
        .update(own instanceof ArrayBuffer ? new Uint8Array(own) : own)
        .digest("hex")}`;
    return v;
  });
  return JSON.parse(json.replace(/"id":"[0-9a-f]{8}-[0-9a-f-]{27}"/g, '"id":"(random)"'));
}

async function run(job: ProbeJob): Promise<unknown> {
  if (job.kind === "prove") {
    let dkim: DKIMVerifyResult | null = null;
    const proof = await proveSender(Buffer.from(job.raw, "base64"), {
      resolver: zoneResolver(job.zone),
      now: new Date(job.now),
      minRsaKeyBits: job.minRsaKeyBits ?? 1024,
      allowNonAsciiLocalParts: false,
      verify: async (raw, options, selection) => {
        dkim = await boundedDkimVerify(raw, options, selection);
        return dkim;
      },
    });
    return { proof, dkim };
  }
  if (job.kind === "parse") {
    const parsed = await parseMail(Buffer.from(job.raw, "base64"), limits);
    return { parsed, fresh: parsed.ok ? freshText(parsed.mail) : null };
  }
  return freshText(job);
}

export async function probe(job: ProbeJob): Promise<ProbeResult> {
  const before = stubCalls().length;
  const result = plain(await run(job));
  return { result, stubCalls: stubCalls().slice(before) };
}
