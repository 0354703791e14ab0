// Misaligned signers (G2): said plainly, and trusted only where the operator vouches for one, per From domain.
//
// Microsoft 365 signs with `<tenant>.onmicrosoft.com` until a tenant turns DKIM on for its own domain, and Google
// Workspace without its own key with `<domain-with-dashes>.<yyyymmdd>.gappssmtp.com`. Such a signature is not
// aligned with From (`dkim-misaligned`): nothing proves that the signer speaks for the From domain. An operator
// who knows the customer may vouch for exactly one signer per From domain; the signer must then be a name that
// belongs to ONE customer, because vouching for a shared signer (`onmicrosoft.com` itself, `gappssmtp.com`,
// `amazonses.com`, `sendgrid.net`, `gmail.com`...) would let every other customer of that provider sign as the
// From domain. We cannot list every shared signer, so the rule is positive: the signer is accepted only when its
// shape proves it is one customer's, and refused otherwise.

// Layer 0 (config validates it when it loads); the gate applies what it allowed (shared/gate/sender-proof.ts).

/** Why a signer cannot be vouched for a From domain (config validation's message says which rule). */
export type DelegationRefusal =
  | "signer-is-from-domain" // the From domain signs as itself: nothing to delegate
  | "signer-shared"; // no shape that proves the name belongs to one customer

/**
 * Both names are lower-case A-labels already (schema.ts `domainName` checks them first). The shapes that prove a signer domain belongs to one customer:
 * - a sub-domain of the From domain itself (`mail.contoso.com` for `contoso.com`): the same owner's DNS;
 * - Microsoft 365's tenant domain, exactly one label under `onmicrosoft.com` (`contoso.onmicrosoft.com`): every
 *   tenant has its own, and Microsoft signs with it until the tenant enables DKIM for its domain;
 * - Google Workspace's default key, `<From domain, dots as hyphens>.<8 digits>.gappssmtp.com`
 *   (`contoso-com.20230601.gappssmtp.com`): the name carries the From domain it was made for.
 */
export function delegationRefusal(fromDomain: string, signer: string): DelegationRefusal | null {
  if (signer === fromDomain) return "signer-is-from-domain";
  if (signer.endsWith(`.${fromDomain}`)) return null;
  const labels = signer.split(".");
  if (labels.length === 3 && signer.endsWith(".onmicrosoft.com")) return null;
  if (
    labels.length === 4 &&
    signer.endsWith(".gappssmtp.com") &&
    labels[0] === fromDomain.replaceAll(".", "-") &&
    /^[0-9]{8}$/.test(labels[1] ?? "")
  )
    return null;
  return "signer-shared";
}

export const DELEGATION_REFUSAL_TEXT: Record<DelegationRefusal, string> = {
  "signer-is-from-domain": "is the From domain itself: its own signatures are aligned already",
  "signer-shared":
    "is not a name that belongs to one customer: only a sub-domain of the From domain, <tenant>.onmicrosoft.com " +
    "or <from-domain-with-hyphens>.<8 digits>.gappssmtp.com can be vouched for (docs/gate.md)",
};
