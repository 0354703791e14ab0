// Our own strict RFC 5322 From parser (G2).
//
// Why hand-rolled: address parsers disagree on hostile addr-specs (DESIGN.md §6). nodemailer's
// addressparser (inside mailauth), postal-mime and MUAs each pick a different "address" out of
// `"ceo@thescoop.com"@evil.com`, `a@evil.com (ceo@thescoop.com)`, `=?utf-8?q?ceo?=@x` or a group.
// Whatever we accept must mean one thing to every reader, so we accept a small, unambiguous subset
// and refuse everything else with a stable code.
//
// Accepted: `local@domain`, or `display-name <local@domain>` where display-name is atoms, quoted
// strings and RFC 2047 encoded-words. The display name is decoded for showing; it is untrusted
// text, never identity.

import { type Fail, fail, type Ok } from "../result.ts";
import { type Token, tokenize } from "./address-tokens.ts";

// The routing key lives with the other address primitives in shared/mail, which the gate builds on (a mail
// module must never import the gate); re-exported here because the gate's rules are stated in its terms.
export { routingKey } from "../mail/index.ts";

import { decodeDisplayName } from "./display-name.ts";
import { normaliseDomain } from "./domain-name.ts";
import { checkLocalPart } from "./local-part.ts";

export type AddressRefusal =
  | "address-empty"
  | "address-too-long"
  | "address-control-char"
  | "address-syntax"
  | "address-comment"
  | "address-multiple"
  | "address-group"
  | "address-obsolete"
  | "address-domain-literal"
  | "address-quoted-local"
  | "address-encoded-word"
  | "address-local-invalid"
  | "address-local-non-ascii"
  | "address-local-mixed-script"
  | "address-domain-invalid"
  | "address-display-name-invalid";

export type ParsedAddress = {
  local: string;
  /** lower-case A-label */
  domain: string;
  /** `${local}@${domain}` */
  address: string;
  /** decoded, untrusted text: show it inside the fence, never decide on it */
  displayName: string;
};

export type ParseFromResult = Ok<{ address: ParsedAddress }> | Fail<AddressRefusal>;

export type ParseFromOptions = { allowNonAsciiLocalParts?: boolean };

// RFC 5322 §2.1.1: a line is at most 998 characters; a From value longer than that is not mail
// any MTA produced for a single address, and the cap bounds the parser's work.
const MAX_VALUE_LENGTH = 998;

// C0 controls (HTAB is WSP and allowed), DEL and C1. Unfolding has removed the CRLFs of folds,
// so a CR or LF left here is a smuggled line break.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

// the start of an RFC 2047 encoded-word, `=?charset?Q?` / `=?charset?B?`
const ENCODED_WORD_START = /=\?[^?]+\?[bq]\?/i;

export function parseFromHeader(value: string, opts: ParseFromOptions = {}): ParseFromResult {
  if (value.trim() === "") return fail("address-empty");
  if (value.length > MAX_VALUE_LENGTH) return fail("address-too-long");
  if (CONTROL.test(value)) return fail("address-control-char");

  const tokens = tokenize(value);
  if (tokens === null) return fail("address-syntax");

  const structural = structuralRefusal(tokens);
  if (structural !== null) return fail(structural);

  const opens = tokens.filter((t) => t.kind === "special" && t.text === "<").length;
  const closes = tokens.filter((t) => t.kind === "special" && t.text === ">").length;
  if (opens > 1) return fail("address-multiple");
  if (opens !== closes) return fail("address-syntax");

  let displayTokens: Token[] = [];
  let specTokens = trimSpace(tokens);
  let angled = false;
  if (opens === 1) {
    const open = tokens.findIndex((t) => t.kind === "special" && t.text === "<");
    const close = tokens.findIndex((t) => t.kind === "special" && t.text === ">");
    // after ">" only whitespace may follow: `<a@b> c` is not a address
    if (close < open || trimSpace(tokens.slice(close + 1)).length > 0) return fail("address-syntax");
    displayTokens = trimSpace(tokens.slice(0, open));
    specTokens = tokens.slice(open + 1, close);
    angled = true;
  }

  const spec = readAddrSpec(specTokens, angled);
  if (!spec.ok) return spec;

  const local = checkLocalPart(spec.local, opts.allowNonAsciiLocalParts === true);
  if (!local.ok) return fail(local.reason);

  const domain = normaliseDomain(spec.domain);
  if (domain === null) return fail("address-domain-invalid");

  const displayName = decodeDisplayName(displayTokens);
  if (displayName === null) return fail("address-display-name-invalid");

  return {
    ok: true,
    address: { local: spec.local, domain, address: `${spec.local}@${domain}`, displayName },
  };
}

// Syntax that makes the header mean something other than one plain address, checked on the
// whole value (outside quoted strings) before any part is read.
function structuralRefusal(tokens: Token[]): AddressRefusal | null {
  const specials = tokens.filter((t) => t.kind === "special").map((t) => t.text);
  // comments are where parsers disagree most: `a@evil.com (ceo@thescoop.com)`
  if (specials.includes("(") || specials.includes(")")) return "address-comment";
  if (specials.includes(",")) return "address-multiple";
  let depth = 0;
  for (const t of tokens) {
    if (t.kind !== "special") continue;
    if (t.text === "<") depth++;
    if (t.text === ">") depth--;
    // `<@route:a@b>` is the obsolete route syntax (RFC 5322 §4.4); outside <> a colon is a group
    if (t.text === ":") return depth > 0 ? "address-obsolete" : "address-group";
  }
  if (specials.includes(";")) return "address-group";
  if (specials.includes("[") || specials.includes("]")) return "address-domain-literal";
  if (specials.includes("\\")) return "address-syntax";
  return null;
}

type SpecResult = Ok<{ local: string; domain: string }> | Fail<AddressRefusal>;

function readAddrSpec(tokens: Token[], angled: boolean): SpecResult {
  if (tokens.length === 0) return fail("address-empty");
  const ats = tokens.flatMap((t, i) => (t.kind === "special" && t.text === "@" ? [i] : []));
  // no "@" outside quotes: a display name alone (`"Test User"`) is no address
  if (ats.length === 0) return fail("address-syntax");
  // `"ceo@thescoop.com"@evil.com`: readers disagree on which @ is the real one
  if (tokens.some((t) => t.kind === "quoted")) return fail("address-quoted-local");
  const spaceAt = tokens.findIndex((t) => t.kind === "space");
  if (spaceAt >= 0) {
    // CFWS inside an angle-addr or around "." and "@" is the obsolete syntax of RFC 5322 §4.4
    const prev = tokens[spaceAt - 1];
    const next = tokens[spaceAt + 1];
    const nearSpecial = prev?.kind === "special" || next?.kind === "special";
    return fail(angled || nearSpecial ? "address-obsolete" : "address-syntax");
  }
  // a leading "@" is a source route (`@a,@b:c@d`); its colon may have been caught already
  if (ats[0] === 0 && ats.length > 1) return fail("address-obsolete");
  if (ats.length > 1) return fail("address-syntax");
  const at = ats[0] as number;
  const localTokens = tokens.slice(0, at);
  const domainTokens = tokens.slice(at + 1);
  const local = localTokens.map((t) => t.text).join("");
  const domain = domainTokens.map((t) => t.text).join("");
  // an encoded-word in the addr-spec is not decoded by RFC 2047 (§5) but is by some MUAs
  if (ENCODED_WORD_START.test(local) || ENCODED_WORD_START.test(domain)) return fail("address-encoded-word");
  if (!isDotAtom(localTokens)) return fail("address-local-invalid");
  // the domain's labels are checked by normaliseDomain
  return { ok: true, local, domain };
}

// dot-atom-text = 1*atext *("." 1*atext): atoms separated by single dots, none at either end
function isDotAtom(tokens: Token[]): boolean {
  if (tokens.length === 0 || tokens.length % 2 === 0) return false;
  return tokens.every((t, i) => (i % 2 === 0 ? t.kind === "atom" : t.kind === "special" && t.text === "."));
}

function trimSpace(tokens: Token[]): Token[] {
  let start = 0;
  let end = tokens.length;
  while (start < end && tokens[start]?.kind === "space") start++;
  while (end > start && tokens[end - 1]?.kind === "space") end--;
  return tokens.slice(start, end);
}

const MAX_REDUCED_LENGTH = 254;

/**
 * An address reduced to address characters, for refusal lines (G4): nothing the sender wrote can
 * reach a reader except [A-Za-z0-9.@_+-], capped at 254 characters (RFC 5321 path limit).
 */
export function reduceToAddressChars(s: string): string {
  return s.replace(/[^A-Za-z0-9.@_+-]/g, "").slice(0, MAX_REDUCED_LENGTH);
}
