// The To and Cc a proven signature covers (G2, G9): who the signer addressed.
//
// A DKIM signature covers the bottom-most instance of each field its h= names (RFC 6376 §5.4.2),
// so a To or Cc added above the signed one, or one the signer never signed, is the word of
// whoever relayed the mail. A mail the CEO signed for mallory, replayed by mallory to an agent,
// names mallory in its signed To: it was not addressed to the agent. Reply-all writes only to
// these addresses, so a Cc added outside the signature never receives the agent's answer.

import { addressParser } from "postal-mime";

export interface SignedRecipients {
  readonly to: readonly string[];
  readonly cc: readonly string[];
}

/** At most this many addresses are read from the signed fields (a reply-all is capped far lower). */
const MAX_ADDRESSES = 200;

// RFC 5322 §2.2.3: unfolding removes each CRLF that is followed by WSP
const unfold = (line: string) => line.replace(/\r?\n(?=[ \t])/g, "");

/**
 * Addresses of the signed To and Cc fields, from the header lines the verifier hashed for the proven signature
 * (`DKIMResult.signingHeaders.headers`). Group members count; a group's name and display names never do.
 */
export function signedRecipients(signedLines: readonly string[]): SignedRecipients {
  const out = { to: [] as string[], cc: [] as string[] };
  let count = 0;
  for (const line of signedLines) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name !== "to" && name !== "cc") continue;
    for (const m of addressParser(unfold(line.slice(colon + 1)), { flatten: true })) {
      if (typeof m.address !== "string" || !m.address.includes("@")) continue;
      if (++count > MAX_ADDRESSES) return out;
      out[name].push(m.address.trim());
    }
  }
  return out;
}
