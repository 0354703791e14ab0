// Single-instance fields (RFC 5322 §3.6): a mail carrying two of one is refused before DKIM runs.
//
// A DKIM signature covers the bottom-most instance of each field its h= names (RFC 6376 §5.4.2), while
// readers (postal-mime, MUAs, our own threading) take the top one. So one extra Message-ID, In-Reply-To or
// References on top of a signed mail is read by us and proven by nobody: a replayed mail with a new
// Message-ID looked like a new mail, and prepended threading headers grafted it into a private thread
//. Rather than pick the signed instance of each field, and teach every reader to, a mail with two
// is refused: real mail never carries two, and then "the one instance" and "the signed instance" are the
// same field whenever h= names it.
//
// MIME's top-level Content-Type, Content-Transfer-Encoding and MIME-Version are single-instance too (RFC 2045 §3:
// "at most one" of each per entity): a Content-Type prepended above a signed mail makes postal-mime re-read the
// signed body with a boundary the relay chose, so text the signer quoted would become the signer's own words.
//
// The list is the fields we read (Sender, Reply-To and Bcc are single-instance too, but nothing reads them).

import type { HeaderField } from "./header-block.ts";

export const SINGLE_INSTANCE_FIELDS = [
  "from",
  "to",
  "cc",
  "subject",
  "date",
  "message-id",
  "in-reply-to",
  "references",
  "content-type",
  "content-transfer-encoding",
  "mime-version",
] as const;

export type SingleInstanceField = (typeof SINGLE_INSTANCE_FIELDS)[number];

const SINGLE = new Set<string>(SINGLE_INSTANCE_FIELDS);

/** The first single-instance field that appears more than once, in header order, or null. */
export function duplicatedField(fields: readonly HeaderField[]): SingleInstanceField | null {
  const seen = new Set<string>();
  for (const f of fields) {
    if (!SINGLE.has(f.name)) continue;
    if (seen.has(f.name)) return f.name as SingleInstanceField;
    seen.add(f.name);
  }
  return null;
}
