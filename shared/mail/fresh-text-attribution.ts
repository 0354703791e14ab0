/**
 * Attribution lines (`On <date>, <name> <addr> wrote:`) and their localised forms, possibly wrapped over up to
 * three lines by the client (Gmail wraps at the address, Apple Mail and Outlook for Mac after the name). Lines
 * are normalised (see `normaliseLine`); no regex here can backtrack.
 */

/** Verbs that close an attribution, as Gmail, Apple Mail, Thunderbird and Outlook for Mac write them. */
const VERBS = [
  "wrote", // en: Gmail, Apple Mail, Thunderbird
  "writes",
  "wrote the following",
  "schrieb", // de
  "a écrit", // fr
  "escribió", // es
  "escreveu", // pt
  "ha scritto", // it
  "scrisse",
  "skrev", // da, nb, sv
  "schreef", // nl
  "napisał", // pl
  "napisała",
  "napisał(a)",
  "pisze", // pl, Thunderbird
  "kirjoitti", // fi
  "написал", // ru
  "написала",
  "написал(а)",
  "написав", // uk
  "пише",
  "írta", // hu
  "yazdı", // tr
  "napsal", // cs
  "napsala",
  "έγραψε", // el
  "写道", // zh, Apple Mail
  "寫道",
  "작성", // ko, Apple Mail
  "のメッセージ", // ja, Apple Mail
];

/** First words of an attribution's first line, used to tell where a wrapped attribution starts. */
const OPENERS = [
  "on ",
  "le ",
  "am ",
  "el ",
  "em ",
  "il ",
  "in data ",
  "op ",
  "den ",
  "dne ",
  "w dniu ",
  "dnia ",
];
const MORE_OPENERS = ["på ", "στις ", "在", "- on ", "- le ", "- am "];

/** Attributions are one short sentence; longer text is not one (and is not searched). */
const MAX_ATTRIBUTION_CHARS = 1000;
/** Gmail wraps an attribution over at most three lines. */
const MAX_ATTRIBUTION_LINES = 3;

function withoutColon(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === ":" || s[end - 1] === "\uff1a" || s[end - 1] === " ")) end--;
  return s.slice(0, end);
}

function endsWithVerb(s: string): boolean {
  const bare = withoutColon(s);
  return VERBS.some((v) => bare.length > v.length && bare.endsWith(v));
}

function endsWithColon(s: string): boolean {
  const last = s[s.length - 1];
  return last === ":" || last === "\uff1a";
}

/** Could a line end an attribution (`... wrote:`, `... <addr>:`, `... wrote` without a colon)? */
function endsAttribution(norm: string): boolean {
  return endsWithColon(norm) || endsWithVerb(norm);
}

/**
 * `text` (one to three lines joined by spaces) is an attribution when it ends with a verb (`... wrote`,
 * `... a écrit :`), or ends with a colon and holds an address or a verb (`2017-11-24 16:32 GMT+01:00 X <x@y>:`,
 * Gmail; `Am 25.06.2015 um 10:55 schrieb Test user:`, Thunderbird).
 */
export function isAttributionText(text: string): boolean {
  if (text.length > MAX_ATTRIBUTION_CHARS) return false;
  if (endsWithVerb(text)) return true;
  return endsWithColon(text) && (text.includes("@") || VERBS.some((v) => text.includes(v)));
}

function isOpener(norm: string): boolean {
  const first = norm[0];
  if (first !== undefined && first >= "0" && first <= "9") return true;
  return OPENERS.some((o) => norm.startsWith(o)) || MORE_OPENERS.some((o) => norm.startsWith(o));
}

function usable(norm: string | undefined): norm is string {
  return norm !== undefined && norm !== "" && !norm.startsWith(">");
}

/**
 * Where the attribution that ends at line `end` starts, or -1. Among the windows of one to three unquoted,
 * non-blank lines ending at `end` that read as an attribution, the widest one whose first line opens like an
 * attribution wins (so the name and date lines of a wrapped `On ... <\naddr> wrote:` go with it); else the
 * narrowest (so a reply line written right above `On ... wrote:` stays fresh).
 */
function attributionStart(norms: readonly string[], end: number): number {
  if (!usable(norms[end]) || !endsAttribution(norms[end])) return -1;
  let joined = "";
  let narrowest = -1;
  let widestOpener = -1;
  for (let start = end; start > end - MAX_ATTRIBUTION_LINES && start >= 0; start--) {
    const line = norms[start];
    if (!usable(line)) break;
    joined = joined === "" ? line : `${line} ${joined}`;
    if (!isAttributionText(joined)) continue;
    if (narrowest < 0) narrowest = start;
    if (isOpener(line)) widestOpener = start;
  }
  return widestOpener >= 0 ? widestOpener : narrowest;
}

/** Number of lines of the attribution starting at line `at` (0 when none starts there). */
export function attributionAt(norms: readonly string[], at: number): number {
  for (let end = at; end < at + MAX_ATTRIBUTION_LINES && end < norms.length; end++) {
    if (!usable(norms[end])) return 0;
    if (attributionStart(norms, end) === at) return end - at + 1;
  }
  return 0;
}
