// The detail of a `dkim-misaligned` refusal (G2): Microsoft 365 and Google Workspace sign with their own domain
// until the customer turns on DKIM for theirs, and without a word the operator never learns why a known customer
// is refused. Delegation, the operator's way to vouch for such a signer, is shared/config/delegated-signer.ts.

import { normaliseDomain } from "./domain-name.ts";

/**
 * The detail of a `dkim-misaligned` refusal: which domain signed instead of the From domain, and the fix (worded
 * as a condition: a look-alike From signed by the real domain is misaligned too, and then there is nothing to fix). The
 * signing domain is shown only in its checked A-label form (G4: never sender text), else not at all.
 */
export function misalignedDetail(signer: string, fromDomain: string): string {
  const shown = normaliseDomain(signer.replace(/\s+/g, "").replace(/\.$/, ""));
  const by = shown === null ? "another domain" : shown;
  return `signed by ${by}, not ${fromDomain}: if ${fromDomain} sends through ${by}, its admin must turn on DKIM signing for ${fromDomain}`;
}
