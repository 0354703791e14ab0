// Mail::DKIM's verifier corpus (79 messages, 2006-2023) under our modern policy. Nearly all of it is
// refused: it is rsa-sha1 with 512-bit keys, DomainKeys, or pre-standard drafts. Every file has its
// expected verdict below with the reason; none is skipped. The clock is fixed so x= never flakes.

import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FIXTURES, readFixture, readZone, verdictOf } from "../../helpers/conformance.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
const zone = readZone("mail-dkim/fake-dns.json");

const EXPECTED: Record<string, string> = {
  // ed25519-sha256 by wander.science, From mail@wander.science: the one modern, aligned, passing signature
  "goodkey_ed25519.txt": "accept",
  // rsa-sha1 (RFC 8301) or an algorithm we do not accept (rsa-md5, dsa-sha1); refused before any other
  // property of the signature or key matters. This is most of the corpus, pass and invalid alike.
  "badkey_1.txt": "dkim-weak-algorithm",
  "badkey_10.txt": "dkim-weak-algorithm",
  "badkey_12.txt": "dkim-weak-algorithm",
  "badkey_13.txt": "dkim-weak-algorithm",
  "badkey_2.txt": "dkim-weak-algorithm",
  "badkey_3.txt": "dkim-weak-algorithm",
  "badkey_4.txt": "dkim-weak-algorithm",
  "badkey_5.txt": "dkim-weak-algorithm",
  "badkey_6.txt": "dkim-weak-algorithm",
  "badkey_7.txt": "dkim-weak-algorithm",
  "badkey_8.txt": "dkim-weak-algorithm",
  "badkey_9.txt": "dkim-weak-algorithm",
  "good_1878523.txt": "dkim-weak-algorithm",
  "good_83176.txt": "dkim-weak-algorithm",
  "good_qp_1.txt": "dkim-weak-algorithm",
  "good_qp_2.txt": "dkim-weak-algorithm",
  "good_qp_3.txt": "dkim-weak-algorithm",
  "good_rfc4871_3.txt": "dkim-weak-algorithm",
  "good_rfc4871_4.txt": "dkim-weak-algorithm",
  "goodkey_1.txt": "dkim-weak-algorithm",
  "goodkey_2.txt": "dkim-weak-algorithm",
  "goodkey_3.txt": "dkim-weak-algorithm",
  "goodkey_4.txt": "dkim-weak-algorithm",
  "ignore_1.txt": "dkim-weak-algorithm",
  "ignore_2.txt": "dkim-weak-algorithm",
  "ignore_3.txt": "dkim-weak-algorithm",
  "ignore_4.txt": "dkim-weak-algorithm",
  "ignore_5.txt": "dkim-weak-algorithm",
  "ignore_6.txt": "dkim-weak-algorithm",
  "ignore_7.txt": "dkim-weak-algorithm",
  "ignore_8.txt": "dkim-weak-algorithm",
  "mine_ietf01_1.txt": "dkim-weak-algorithm",
  "mine_ietf01_2.txt": "dkim-weak-algorithm",
  "mine_ietf05_1.txt": "dkim-weak-algorithm",
  "multiple_2.txt": "dkim-weak-algorithm",
  "no_body_1.txt": "dkim-weak-algorithm",
  "no_body_2.txt": "dkim-weak-algorithm",
  "no_body_3.txt": "dkim-weak-algorithm",
  // DomainKeys only (DomainKey-Signature, RFC 4870, historic): no DKIM-Signature at all
  "bad_dk_1.txt": "dkim-none",
  "bad_dk_2.txt": "dkim-none",
  "bad_dk_3.txt": "dkim-none",
  "bad_dk_4.txt": "dkim-none",
  "bad_dk_5.txt": "dkim-none",
  "dk_headers_1.txt": "dkim-none",
  "dk_headers_2.txt": "dkim-none",
  "dk_multiple_1.txt": "dkim-none",
  "good_dk_1.txt": "dkim-none",
  "good_dk_2.txt": "dkim-none",
  "good_dk_3.txt": "dkim-none",
  "good_dk_4.txt": "dkim-none",
  "good_dk_5.txt": "dkim-none",
  "good_dk_6.txt": "dkim-none",
  "good_dk_7.txt": "dkim-none",
  "good_dk_gmail.txt": "dkim-none",
  "good_dk_yahoo.txt": "dkim-none",
  // d= is another domain than From: vmt2.cis.att.net for tony@att.com (pre-standard ietf00/01
  // signatures), blackhole(2).messiah.edu for jlong@messiah.edu (badkey_14/15, whose keys time out /
  // SERVFAIL: alignment is checked first, so DNS is never the reason)
  "bad_1.txt": "dkim-misaligned",
  "bad_ietf01_1.txt": "dkim-misaligned",
  "bad_ietf01_2.txt": "dkim-misaligned",
  "bad_ietf01_3.txt": "dkim-misaligned",
  "badkey_14.txt": "dkim-misaligned",
  "badkey_15.txt": "dkim-misaligned",
  // two Date fields: AT&T's relay ("Date has been added by Maillennium") put an unsigned Date above the
  // signed one. Exactly the shape the single-instance rule refuses, before the signature is looked at: readers
  // show the top Date, the signature covers the bottom one
  "good_ietf00_1.txt": "header-duplicated",
  "good_ietf00_2.txt": "header-duplicated",
  "good_ietf00_3.txt": "header-duplicated",
  "good_ietf00_4.txt": "dkim-misaligned",
  "good_ietf00_5.txt": "dkim-misaligned",
  "good_ietf01_1.txt": "dkim-misaligned",
  "good_ietf01_2.txt": "dkim-misaligned",
  "multiple_1.txt": "dkim-misaligned",
  // ed25519 signatures whose body hash does not match (mailauth checks the body hash before the key)
  "badkey1_ed25519.txt": "dkim-body-modified",
  "badkey3_ed25519.txt": "dkim-body-modified",
  "badkey4_ed25519.txt": "dkim-body-modified",
  "badkey5_ed25519.txt": "dkim-body-modified",
  // ed25519 signature over a modified header
  "badkey2_ed25519.txt": "dkim-fail",
  // rsa-sha256 that cannot be evaluated: a key record h= that excludes sha256 (badkey_11), pre-standard
  // signatures without v= (mine_ietf01_3/4, strict mode: missing required tag)
  "badkey_11.txt": "dkim-neutral",
  "mine_ietf01_3.txt": "dkim-neutral",
  "mine_ietf01_4.txt": "dkim-neutral",
  // no header section beyond the signature: no From (upstream: a crash regression test)
  "bad_1878954.txt": "from-missing",
};

const files = readdirSync(`${FIXTURES}mail-dkim/corpus`).sort();

describe("Mail::DKIM corpus under a modern policy", () => {
  it("has an expected verdict for each of the 79 files", () => {
    expect(files).toHaveLength(79);
    expect(Object.keys(EXPECTED).sort()).toEqual(files);
  });

  it.each(files)("%s", async (file) => {
    expect(await verdictOf(readFixture(`mail-dkim/corpus/${file}`), zone, NOW)).toBe(EXPECTED[file]);
  });

  it("accepts exactly one file", () => {
    expect(Object.values(EXPECTED).filter((v) => v === "accept")).toHaveLength(1);
  });
});
