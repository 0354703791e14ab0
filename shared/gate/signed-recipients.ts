// The To and Cc a proven signature covers (G2, G9): who the signer addressed.
//
// A DKIM signature covers the bottom-most instance of each field its h= names (RFC 6376 §5.4.2),
// so a To or Cc added above the signed one, or one the signer never signed, is the word of
// whoever relayed the mail. A mail the CEO signed for mallory, replayed by mallory to an agent,
// names mallory in its signed To: it was not addressed to the agent. Reply-all writes only to
// these addresses, so a Cc added outside the signature never receives the agent's answer.
// Each address is read by the strict parser G2 uses for From (address-list.ts): an encoded-word
// is display text, never an address.

import type { AddressRefusal, ParseFromOptions } from "./address.ts";
import { parseAddressList } from "./address-list.ts";

export interface SignedRecipients {
  readonly to: readonly string[];
  readonly cc: readonly string[];
  /** Why each signed To/Cc element that is no address was refused (it addresses no one, G2). */
  readonly refused: readonly AddressRefusal[];
}

/** At most this many addresses are read from the signed fields (a reply-all is capped far lower). */
const MAX_ADDRESSES = 200;

// RFC 5322 §2.2.3: unfolding removes each CRLF that is followed by WSP
const unfold = (line: string) => line.replace(/\r?\n(?=[ \t])/g, "");

/**
 * Addresses of the signed To and Cc fields, from the header lines the verifier hashed for the proven signature
 * (`DKIMResult.signingHeaders.headers`). Group members count; a group's name and display names never do.
 */
export function signedRecipients(
  signedLines: readonly string[],
  opts: ParseFromOptions = {},
): SignedRecipients {
  const out = { to: [] as string[], cc: [] as string[], refused: [] as AddressRefusal[] };
  let count = 0;
  for (const line of signedLines) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name !== "to" && name !== "cc") continue;
    const list = parseAddressList(unfold(line.slice(colon + 1)).trim(), opts);
    out.refused.push(...list.refused);
    for (const m of list.addresses) {
      if (++count > MAX_ADDRESSES) return out;
      out[name].push(m.address);
    }
  }
  return out;
}
