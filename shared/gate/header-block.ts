// Our own reading of the header section, used to count From and Subject fields and to find the
// DKIM-Signature fields. It follows the header/body split of mailauth's parser (the first empty
// line, bare LF accepted) so both see the same fields, and sender-proof.ts checks that they do.
// Lines that are neither a field nor a fold are refused rather than glued onto the field above
// (mailauth glues them, MUAs differ): a From that readers could disagree about is no From at all.

import { type Fail, fail, type Ok } from "../result.ts";

export type HeaderField = {
  /** lower-case field name */
  name: string;
  /** the whole field as written, rows joined with CRLF (mailauth's `line`, as latin1 text) */
  line: string;
  /** the unfolded value after the colon, WSP-trimmed (latin1 text: bytes, not characters) */
  value: string;
};

/** `header-malformed`: a line that is neither a field nor a fold, a lone CR or a NUL (sender proof's code). */
export type HeaderBlock = Ok<{ fields: HeaderField[] }> | Fail<"header-malformed">;

// RFC 5322 §3.6.8 field-name = 1*ftext (printable ASCII except ":"), then obs-optional WSP (§4.5)
const FIELD_START = /^([\x21-\x39\x3b-\x7e]+)[ \t]*:/;

export function readHeaderBlock(raw: Buffer): HeaderBlock {
  // only the header section is turned into text: the body may be megabytes
  const header = trimLineEnds(headerSection(raw).toString("latin1"));
  if (header === "") return { ok: true, fields: [] };

  const rows: string[][] = [];
  for (const row of header.split(/\r?\n/)) {
    // a lone CR or a NUL inside the header section is a known smuggling vector
    if (row.includes("\r") || row.includes("\0")) return fail("header-malformed");
    const last = rows.at(-1);
    if (row.startsWith(" ") || row.startsWith("\t")) {
      if (last === undefined) return fail("header-malformed");
      last.push(row);
    } else if (FIELD_START.test(row)) {
      rows.push([row]);
    } else {
      return fail("header-malformed");
    }
  }
  return { ok: true, fields: rows.map(toField) };
}

/** Bytes of the header section (up to the first empty line), found without reading it as text. */
export function headerSectionBytes(raw: Buffer): number {
  return headerSection(raw).byteLength;
}

function headerSection(raw: Buffer): Buffer {
  if (raw[0] === 0x0a || (raw[0] === 0x0d && raw[1] === 0x0a)) return raw.subarray(0, 0);
  const ends = [raw.indexOf("\n\n"), raw.indexOf("\n\r\n")].filter((i) => i >= 0);
  return ends.length === 0 ? raw : raw.subarray(0, Math.min(...ends));
}

// trailing CR/LF removed without a regex (`/[\r\n]+$/` is quadratic on a long run of CRs)
function trimLineEnds(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === "\r" || s[end - 1] === "\n")) end--;
  return s.slice(0, end);
}

function toField(rows: string[]): HeaderField {
  const line = rows.join("\r\n");
  const colon = line.indexOf(":");
  const name = line
    .slice(0, colon)
    .replace(/[ \t]+$/, "")
    .toLowerCase();
  // RFC 5322 §2.2.3: unfolding removes each CRLF that is followed by WSP
  const value = line
    .slice(colon + 1)
    .replace(/\r\n(?=[ \t])/g, "")
    .replace(/^[ \t]+|[ \t]+$/g, "");
  return { name, line, value };
}

/** The bytes of a latin1 header value read as UTF-8 (RFC 6532), or null when they are not UTF-8. */
export function headerValueAsUtf8(value: string): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(value, "latin1"));
  } catch {
    return null;
  }
}

/** Whether the verifier saw the very fields we counted and parsed, in the same order. */
export function sameFields(
  ours: readonly HeaderField[],
  theirs: { key: string; line: Buffer }[] | undefined,
): boolean {
  if (theirs === undefined || theirs.length !== ours.length) return false;
  return ours.every((f, i) => theirs[i]?.key === f.name && theirs[i]?.line.toString("latin1") === f.line);
}
