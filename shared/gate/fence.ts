import { randomBytes as cryptoRandomBytes } from "node:crypto";
import { PosternError } from "../errors.ts";
import { normaliseUntrusted, untrustedLine, untrustedLines } from "../mail/index.ts";

/**
 * What the model sees (G4, G8). Untrusted text goes inside a fence it cannot close: the marker lines carry a
 * nonce drawn fresh for every rendering, and every line between them starts with `| `, so no byte sequence the
 * sender controls (a copied marker, a guessed nonce, U+2028, NEL, a lone CR) can produce a line that does not
 * start with the prefix.
 */

export { normaliseUntrusted };

export type RandomBytes = (n: number) => Uint8Array;

/** 96 bits: far past guessing, and the renderer never reuses one. */
const NONCE_BYTES = 12;
const NONCE_PATTERN = /^[0-9a-f]{16,64}$/;
export const LINE_PREFIX = "| ";

export interface UntrustedPart {
  /** Code-written label (`Subject`, `From`); null for free text such as a body. */
  readonly label: string | null;
  readonly text: string;
}

/**
 * A line the code writes inside the fence, e.g. that the text above was cut. It is drawn like the
 * fence's own marker lines (`<<<NOTE nonce>>> ...`, no `| ` prefix), so no sender text can produce it: every line of
 * theirs starts with the prefix, and the nonce is fresh for this rendering. Code-written only: printable ASCII on
 * one line, or the renderer throws (a bug, never a sender's doing).
 */
export interface FenceNote {
  readonly note: string;
}

const NOTE_TEXT = /^[\x20-\x7e]{1,500}$/;

export interface FenceOptions {
  /** Fixed nonce (tests only); lower-case hex, >= 64 bits. Default: fresh from crypto. */
  readonly nonce?: string;
  readonly randomBytes?: RandomBytes;
  /** What the fence holds, e.g. `MAIL`; upper-case letters and spaces only. */
  readonly kind?: string;
}

export function freshNonce(randomBytes: RandomBytes = cryptoRandomBytes): string {
  return Buffer.from(randomBytes(NONCE_BYTES)).toString("hex");
}

function fenceKind(kind: string | undefined): string {
  const k = kind ?? "MAIL";
  if (!/^[A-Z][A-Z ]{0,30}$/.test(k))
    throw new PosternError("invalid-argument", `fence kind must be upper-case words: ${k}`);
  return k;
}

export function renderUntrusted(
  parts: readonly (UntrustedPart | FenceNote)[],
  opts: FenceOptions = {},
): string {
  const nonce = opts.nonce ?? freshNonce(opts.randomBytes);
  if (!NONCE_PATTERN.test(nonce))
    throw new PosternError("invalid-argument", "fence nonce must be 16-64 lower-case hex digits");
  const kind = fenceKind(opts.kind);
  const out = [`<<<UNTRUSTED ${kind} ${nonce}>>>`];
  for (const part of parts) {
    if ("note" in part) {
      if (!NOTE_TEXT.test(part.note))
        throw new PosternError("invalid-argument", "a fence note must be one line of printable ASCII");
      out.push(`<<<NOTE ${nonce}>>> ${part.note}`);
      continue;
    }
    const label = part.label === null ? "" : `${untrustedLine(part.label)}: `;
    for (const line of untrustedLines(part.text)) out.push(`${LINE_PREFIX}${label}${line}`);
  }
  out.push(`<<<END UNTRUSTED ${kind} ${nonce}>>>`);
  return out.join("\n");
}

export interface ShownAttachment {
  readonly filename: string | null;
  readonly contentType: string;
  readonly size: number;
}

export interface RenderableMail {
  /** The proven sender address (G2). */
  readonly fromAddress: string;
  /** Decoded display name, or null. Withheld when it reads as an address (see looksLikeAddress). */
  readonly displayName: string | null;
  readonly subject: string | null;
  /** Plain-text body only. HTML is never rendered: hidden text and styling are where injections hide. */
  readonly text: string | null;
  /** Whether the mail had an HTML body (truthy: it had one). */
  readonly html: string | boolean | null;
  readonly attachments: readonly ShownAttachment[];
  /** Code-written note after the body, inside the fence (e.g. that the body was cut, and how to read on). */
  readonly note?: string;
}

export const HTML_ONLY_NOTICE = "[this message has only an HTML body, which is not shown]";
export const NO_BODY_NOTICE = "[this message has no text body]";
const MAX_FILENAME_CHARS = 200;

function filenameLine(a: ShownAttachment): string {
  const raw = a.filename === null ? "(no name)" : untrustedLine(a.filename);
  const name = raw.length > MAX_FILENAME_CHARS ? `${raw.slice(0, MAX_FILENAME_CHARS)}…` : raw;
  const type = a.contentType.toLowerCase().replace(/[^a-z0-9.+/-]/g, "") || "application/octet-stream";
  return `${name} (${type}, ${Math.max(0, Math.trunc(a.size))} bytes)`;
}

export const DISPLAY_NAME_WITHHELD = "(display name withheld)";

/** Characters drawn as an @ that NFKC leaves alone or turns into a plain letter (circled a, Cham spiral). */
const AT_GLYPHS = /[\u24b6\u24d0\uaa5c\u{1f150}]/u;
/**
 * Matched after NFKC, which folds the full-width ＠ (U+FF20) and small ﹫ (U+FE6B) into @: any @, an escape a
 * model reads as one (`&#64;`, `&#x40;`, `&commat;`, `%40`), or a bracketed "at" (`ceo[at]victim.example`).
 */
const AT_FORMS = /@|&#0*64;|&#x0*40;|&commat;|%40|[([{<]\s*at\s*[)\]}>]/i;

/**
 * Whether a display name reads as, or holds, a mail address. The name is the one piece of sender text shown on
 * the From line, right beside the address G2 proved, so `"ceo@victim.example" <x@evil.example>` would put an
 * unproven identity exactly where the model (or a person reading a trace) looks for the sender. We are strict on
 * purpose: a person's name never needs an @, while a test that parsed for a valid address would miss every
 * variant a model still reads as one (look-alike @, escapes, `[at]`), so any trace of an @ withholds the name.
 */
export function looksLikeAddress(name: string): boolean {
  // Judged on the text as shown: invisible characters removed first, so `&#\u200b64;` cannot dodge the test.
  const shown = untrustedLine(name);
  return AT_GLYPHS.test(shown) || AT_FORMS.test(shown.normalize("NFKC"));
}

/** A display name as anything agent-facing may show it (tools included): withheld when it reads as an address. */
export function shownDisplayName(name: string): string {
  return name && looksLikeAddress(name) ? DISPLAY_NAME_WITHHELD : name;
}

/** The From line: the proven address, after the display name only when the name cannot pass for an address. */
function fromLine(mail: RenderableMail): string {
  if (!mail.displayName) return mail.fromAddress;
  const name = untrustedLine(mail.displayName);
  return `${looksLikeAddress(name) ? DISPLAY_NAME_WITHHELD : name} <${mail.fromAddress}>`;
}

export function renderMessage(mail: RenderableMail, randomBytes?: RandomBytes): string {
  const from = fromLine(mail);
  const parts: UntrustedPart[] = [
    { label: "From", text: from },
    { label: "Subject", text: mail.subject ?? "" },
  ];
  for (const a of mail.attachments) parts.push({ label: "Attachment", text: filenameLine(a) });
  parts.push({ label: null, text: "" });
  const hasText = mail.text !== null && mail.text.trim() !== "";
  const body = hasText ? (mail.text as string) : mail.html ? HTML_ONLY_NOTICE : NO_BODY_NOTICE;
  const all: (UntrustedPart | FenceNote)[] = [...parts, { label: null, text: body }];
  if (mail.note !== undefined) all.push({ note: mail.note });
  return renderUntrusted(all, randomBytes ? { randomBytes } : {});
}

/**
 * The only output for refused or dropped mail (G4): the reason code and the sender address reduced to address
 * characters. No Subject, display name or body, ever; a hostile "address" cannot smuggle text either.
 */
export function renderRefusal(
  reason: string,
  address: string | null,
  verdict: "refuse" | "drop" = "refuse",
): string {
  const code =
    reason
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, "")
      .slice(0, 64) || "unknown";
  const addr = (address ?? "").replace(/[^A-Za-z0-9.@_+-]/g, "").slice(0, 254) || "unknown-sender";
  return `${verdict === "drop" ? "dropped" : "refused"}: ${code} ${addr}`;
}
