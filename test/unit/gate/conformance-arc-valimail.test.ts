// The ValiMail ARC validation suite (RFC 8617 drafts), run through our ARC proof (arc-proof.ts): the chain verdict
// each scenario expects against ours. Origin and licence: test/fixtures/arc-valimail/README.md.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { proveByArc } from "../../../shared/gate/arc-proof.ts";
import { readHeaderBlock } from "../../../shared/gate/header-block.ts";
import { type Zone, zoneResolver } from "../../../shared/runtime/zone-resolver.ts";

interface Case {
  scenario: string;
  name: string;
  description: string;
  cv: "Pass" | "Fail" | "None" | "";
  message: string;
  txt: Record<string, string>;
}
const CASES: Case[] = JSON.parse(
  readFileSync(new URL("../../fixtures/arc-valimail/arc-validation.json", import.meta.url), "utf8"),
);

// The suite's sealers; every one is trusted here, so the verdict is the chain's own.
const SEALERS = ["example.org", "example2.org"];

function zoneOf(txt: Record<string, string>): Zone {
  const zone: Zone = {};
  for (const [name, value] of Object.entries(txt)) zone[name] = { TXT: [value.match(/.{1,255}/g) ?? [""]] };
  return zone;
}

/** Our verdict on the chain alone: "Pass" once every seal and the newest message signature verified. */
async function chainVerdict(c: Case): Promise<string> {
  const raw = Buffer.from(c.message.replace(/\r?\n/g, "\r\n"), "latin1");
  const block = readHeaderBlock(raw);
  if (!block.ok) return `unreadable (${block.reason})`;
  const proof = await proveByArc(raw, block.fields, "d1.example", {
    resolver: zoneResolver(zoneOf(c.txt)),
    now: new Date("2017-01-04T00:00:00Z"),
    minRsaKeyBits: 1024,
    trustedSealers: SEALERS,
    keyLookupTimeoutMs: 2000,
  });
  if (proof === null) return "None";
  if (proof.ok) return "Pass";
  // these refusals come after the chain validated: what the sealer said, not whether the chain holds
  if (proof.reason === "arc-no-author-pass" || proof.reason === "arc-untrusted-sealer") return "Pass";
  return `Fail (${proof.reason})`;
}

// Where our verdict differs from the suite's, written out, with why (each is still run and must give ours). The
// suite predates RFC 8617 (draft 12/16) and leaves some verdicts empty.
const OURS: Record<string, { verdict: string; why: string }> = {
  cv_fail_i1_as_cv_fail: {
    verdict: "Fail (arc-fail)",
    why: "RFC 8617 §5.2 step 2: a newest seal with cv=fail fails the chain (the suite leaves the verdict empty)",
  },
  cv_fail_i2_as2_fail: { verdict: "Fail (arc-fail)", why: "the same: the newest seal says cv=fail" },
  cv_fail_i2_as1_fail: {
    verdict: "Fail (arc-fail)",
    why: "RFC 8617 §5.2 step 3.C: a seal at i>1 must say cv=pass; one that says fail breaks the chain",
  },
  ams_fields_c_na: {
    verdict: "Fail (arc-fail)",
    why: "RFC 8617 §4.1.2: without c= the AMS is simple/simple (RFC 6376 §3.5); the draft assumed relaxed",
  },
  ams_fields_h_empty: {
    verdict: "Fail (arc-fail)",
    why: "an AMS that does not sign From proves nothing about the author (RFC 6376 §6.1.1; mailauth ignores it)",
  },
};

describe("ValiMail ARC validation suite", () => {
  it.each(CASES.map((c) => [`${c.scenario} / ${c.name}: ${c.description}`, c] as const))(
    "%s",
    async (_, c) => {
      const got = await chainVerdict(c);
      const ours = OURS[c.name];
      if (ours !== undefined) expect(got).toBe(ours.verdict);
      else expect(got.startsWith("Fail") ? "Fail" : got).toBe(c.cv);
    },
  );

  it("lists only differences that exist", () => {
    for (const name of Object.keys(OURS)) expect(CASES.some((c) => c.name === name)).toBe(true);
  });
});
