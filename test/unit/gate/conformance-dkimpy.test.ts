// dkimpy 1.1.4's five pre-signed vectors, each with the zone vectors.json gives it.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { zoneSchema } from "../../../shared/runtime/zone-resolver.ts";
import { FIXTURES, readFixture, verdictOf } from "../../helpers/conformance.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
const vectors = (
  JSON.parse(readFileSync(`${FIXTURES}dkimpy/vectors.json`, "utf8")) as { file: string; dns: unknown }[]
).map((v) => ({ file: v.file, dns: zoneSchema.parse(v.dns) }));

// Expected verdict under our policy, and why.
const EXPECTED: Record<string, [verdict: string, why: string]> = {
  "data/rfc6376.signed.msg": [
    "accept",
    "ed25519-sha256 and rsa-sha256 (1024-bit), d= = From domain football.example.com",
  ],
  "data/rfc6376.signed.rsa.msg": ["accept", "rsa-sha256, 1024-bit key (the default floor), aligned"],
  "data/test2.message": ["dkim-misaligned", "verifies, but d=gmail.com while From is cfr@strace.org"],
  "data/ed25519test2.msg": ["dkim-misaligned", "verifies, but d=test.ex while From is nobody@example.com"],
  "data/test.message.baddomain": [
    "dkim-misaligned",
    "d=legitimate.com(.attacker.com is no domain: it never equals the From domain (strict mailauth: syntax error)",
  ],
};

describe("dkimpy pre-signed vectors", () => {
  it("has an expected verdict for every vector", () => {
    expect(vectors.map((v) => v.file).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(vectors.map((v) => [v.file, v.dns] as const))("%s", async (file, dns) => {
    const [verdict] = EXPECTED[file] ?? ["missing"];
    expect(await verdictOf(readFixture(`dkimpy/${file}`), dns, NOW)).toBe(verdict);
  });

  it("refuses the 1024-bit rsa-only vector under a 2048-bit floor", async () => {
    const vector = vectors.find((v) => v.file === "data/rfc6376.signed.rsa.msg");
    expect(
      await verdictOf(readFixture("dkimpy/data/rfc6376.signed.rsa.msg"), vector?.dns ?? {}, NOW, 2048),
    ).toBe("dkim-weak-key");
  });
});
