// A From domain as the one identity DKIM can prove: the lower-case A-label (RFC 5890), compared
// byte for byte with the signature's d=. Conversion must not change which domain is meant, so any
// UTS #46 mapping beyond lower-casing (full-width letters, ignored zero-width characters, the
// IPv4 shorthand `0x7f.1` → `127.0.0.1`) is refused rather than silently applied.

import { domainToASCII, domainToUnicode } from "node:url";

// RFC 1035 §2.3.4 / RFC 5321 §4.5.3.1.2
const MAX_DOMAIN_LENGTH = 253;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The lower-case A-label form of `domain`, or null when it is not a plain host name. */
export function normaliseDomain(domain: string): string | null {
  const lower = domain.toLowerCase();
  const ascii = domainToASCII(lower);
  if (ascii === "") return null;
  // the conversion may only encode U-labels, never map one name onto another
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  const isAscii = !/[^\x00-\x7f]/.test(lower);
  if (isAscii ? ascii !== lower : domainToUnicode(ascii) !== lower) return null;
  if (ascii.length > MAX_DOMAIN_LENGTH) return null;
  const labels = ascii.split(".");
  // a single label is no internet mail domain; an all-numeric last label is an IP address
  if (labels.length < 2 || /^[0-9]+$/.test(labels.at(-1) ?? "")) return null;
  return labels.every(isValidLabel) ? ascii : null;
}

function isValidLabel(label: string): boolean {
  if (!LDH_LABEL.test(label)) return false;
  // RFC 5891 §4.2.3.1: hyphens in positions 3 and 4 are reserved for A-labels ("xn--")
  if (label.slice(2, 4) !== "--") return true;
  if (!label.startsWith("xn--")) return false;
  // an A-label must decode, and re-encode to itself (no invalid or non-canonical Punycode)
  const unicode = domainToUnicode(label);
  return unicode !== label && domainToASCII(unicode) === label;
}
