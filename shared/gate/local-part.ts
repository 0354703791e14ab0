// Local-part rules beyond dot-atom syntax: length, and non-ASCII (RFC 6532) only when the operator
// allows it, and then never mixed-script (`pаypal` with a Cyrillic "а" looks like `paypal`).

import { type Fail, fail, type Ok, ok } from "../result.ts";

export type LocalPartRefusal =
  | "address-local-invalid"
  | "address-local-non-ascii"
  | "address-local-mixed-script";
export type LocalPartCheck = Ok | Fail<LocalPartRefusal>;

// RFC 5321 §4.5.3.1.1: a local part is at most 64 octets
const MAX_LOCAL_OCTETS = 64;

// Scripts we can name; a letter of any other script is refused (fail closed).
const SCRIPTS = [
  "Latin",
  "Greek",
  "Cyrillic",
  "Armenian",
  "Hebrew",
  "Arabic",
  "Devanagari",
  "Bengali",
  "Gurmukhi",
  "Gujarati",
  "Tamil",
  "Telugu",
  "Kannada",
  "Malayalam",
  "Sinhala",
  "Thai",
  "Lao",
  "Tibetan",
  "Myanmar",
  "Georgian",
  "Hangul",
  "Ethiopic",
  "Khmer",
  "Hiragana",
  "Katakana",
  "Bopomofo",
  "Han",
] as const;
const SCRIPT_RES = SCRIPTS.map((name) => [name, new RegExp(`^\\p{Script=${name}}$`, "u")] as const);

// UTS #39 §5.2 "Highly Restrictive": one script, or Latin with the CJK combinations.
const ALLOWED_MIXES = [
  ["Latin", "Han", "Hiragana", "Katakana"],
  ["Latin", "Han", "Bopomofo"],
  ["Latin", "Han", "Hangul"],
];

export function checkLocalPart(local: string, allowNonAscii: boolean): LocalPartCheck {
  if (Buffer.byteLength(local, "utf8") > MAX_LOCAL_OCTETS) return fail("address-local-invalid");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  if (!/[^\x00-\x7f]/.test(local)) return ok();
  if (!allowNonAscii) return fail("address-local-non-ascii");
  // only letters, marks and digits beyond ASCII, in NFC: no invisible or look-alike punctuation
  if (local.normalize("NFC") !== local || /[^\x20-\x7e\p{L}\p{M}\p{N}]/u.test(local)) {
    return fail("address-local-invalid");
  }
  return isSingleScript(local) ? ok() : fail("address-local-mixed-script");
}

function isSingleScript(s: string): boolean {
  const seen = new Set<string>();
  for (const c of s) {
    if (!/\p{L}/u.test(c)) continue;
    const script = SCRIPT_RES.find(([, re]) => re.test(c))?.[0];
    if (script === undefined) return false;
    seen.add(script);
  }
  if (seen.size <= 1) return true;
  return ALLOWED_MIXES.some((mix) => [...seen].every((s) => mix.includes(s)));
}
