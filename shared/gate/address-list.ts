// To and Cc read by the same strict parser as From (G2, G9): an address-list (RFC 5322 §3.4) is split
// into its addresses on our own tokens, and each address must pass parseFromHeader on its own.
//
// Why not postal-mime's addressParser (which this replaced): it decodes encoded-words before it parses, so
// a signed `To: =?UTF-8?Q?Mallory_=3Cdesk=40agents.example=3E?=` (display text, no address at all) read as
// `Mallory <desk@agents.example>` and addressed the agent. It also repairs what it cannot read,
// the very disagreement between readers that G2 exists to refuse. Here an encoded-word is display text and
// never an address, a group is expanded to its members, and anything the strict parser refuses is no
// address: not for "addressed", not for reply-all, not for thread membership.

import type { AddressRefusal, ParsedAddress, ParseFromOptions } from "./address.ts";
import { parseFromHeader } from "./address.ts";
import { type Token, tokenize } from "./address-tokens.ts";

export interface AddressList {
  /** Addresses that passed the strict parser, in order (group members included). */
  readonly addresses: readonly ParsedAddress[];
  /** Why each refused list element was refused, in order: none of them is an address. */
  readonly refused: readonly AddressRefusal[];
}

/**
 * List elements read at most: a header section is already capped by the attachment limits, and a reply-all
 * is capped far lower; this bounds the work on a list of commas whatever the cap is set to.
 */
export const MAX_LIST_ELEMENTS = 1000;

const isSpecial = (t: Token, text: string) => t.kind === "special" && t.text === text;

/** A phrase's tokens (RFC 5322 §3.2.5, with obs-phrase's "."): what a group's display name may be. */
const isPhrase = (t: Token) => t.kind !== "special" || t.text === ".";

/** The element's text as written: quoted strings keep their quotes, so the strict parser sees what we saw. */
const textOf = (tokens: readonly Token[]) =>
  tokens.map((t) => (t.kind === "quoted" ? t.raw : t.text)).join("");

/**
 * The addresses of an address-list value (unfolded, UTF-8). Elements are split at top-level commas; a group
 * (`name: a@b, c@d;`) contributes its members and never its name; an element after a group's `;` without a
 * comma, a nested group, or an unterminated one is refused with its members. Empty elements (`a@b,,c@d`,
 * `undisclosed-recipients:;`) are nothing, not refusals.
 */
export function parseAddressList(value: string, opts: ParseFromOptions = {}): AddressList {
  const tokens = tokenize(value);
  // an unterminated quoted string: where any element ends is a guess, so none is an address
  if (tokens === null) return { addresses: [], refused: ["address-syntax"] };
  const elements: Token[][] = [];
  let current: Token[] = [];
  let depth = 0;
  let inGroup = false;
  let groupStart = 0;
  let afterGroup = false;
  const flush = () => {
    elements.push(current);
    current = [];
  };
  for (const t of tokens) {
    if (elements.length >= MAX_LIST_ELEMENTS) break;
    if (isSpecial(t, "<")) depth++;
    if (isSpecial(t, ">")) depth--;
    if (depth === 0 && isSpecial(t, ",")) {
      flush();
      afterGroup = false;
      continue;
    }
    if (t.kind === "space") {
      current.push(t);
      continue;
    }
    // `g: a@b; c@d` has no comma after the group: the element that follows is malformed (kept refusable by
    // carrying the `;` into it, which the strict parser refuses as a group)
    if (afterGroup) {
      current.push({ kind: "special", text: ";" });
      afterGroup = false;
    }
    if (depth === 0 && !inGroup && isSpecial(t, ":") && current.every(isPhrase)) {
      // a group's display name is a phrase and never an address (RFC 5322 §3.4); its members follow
      inGroup = true;
      groupStart = elements.length;
      current = [];
      continue;
    }
    if (depth === 0 && inGroup && isSpecial(t, ";")) {
      flush();
      inGroup = false;
      afterGroup = true;
      continue;
    }
    current.push(t);
  }
  flush();
  // an unterminated group (`g: a@b, c@d` with no `;`): where it was meant to end is a guess, so each of its
  // members carries the group's colon, which the strict parser refuses
  if (inGroup)
    for (const element of elements.slice(groupStart)) element.unshift({ kind: "special", text: ":" });

  const addresses: ParsedAddress[] = [];
  const refused: AddressRefusal[] = [];
  for (const element of elements) {
    const text = textOf(element);
    if (text.trim() === "") continue;
    const parsed = parseFromHeader(text, opts);
    if (parsed.ok) addresses.push(parsed.address);
    else refused.push(parsed.reason);
  }
  return { addresses, refused };
}
