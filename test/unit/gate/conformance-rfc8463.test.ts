// RFC 8463 Appendix A (mailauth's copy) and mailauth's duplicate-Subject mail.

import { describe, expect, it } from "vitest";
import { proveSenderWith, readFixture, readZone, verdictOf } from "../../helpers/conformance.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
const message = readFixture("mailauth/rfc8463-signed.eml");
const zone = readZone("mailauth/rfc8463-dns.json");
const { "brisbane._domainkey.football.example.com": ed25519, ...withoutEd25519 } = zone;

describe("RFC 8463 signed example", () => {
  it("is accepted on its ed25519-sha256 signature, the first that qualifies", async () => {
    expect(await proveSenderWith(message, zone, NOW)).toMatchObject({
      ok: true,
      address: "joe@football.example.com",
      signature: { domain: "football.example.com", selector: "brisbane", algorithm: "ed25519-sha256" },
    });
  });

  it("is accepted on its 1024-bit rsa-sha256 signature alone, at the default 1024-bit floor", async () => {
    expect(ed25519).toBeDefined();
    expect(await proveSenderWith(message, withoutEd25519, NOW)).toMatchObject({
      ok: true,
      signature: { selector: "test", algorithm: "rsa-sha256", keyBits: 1024 },
    });
  });

  it("is refused on the RSA signature alone when the operator's floor is 2048 bits", async () => {
    expect(await verdictOf(message, withoutEd25519, NOW, 2048)).toBe("dkim-weak-key");
  });

  it("is still accepted at a 2048-bit floor while the ed25519 signature verifies", async () => {
    expect(await verdictOf(message, zone, NOW, 2048)).toBe("accept");
  });

  it("is refused without its keys in DNS", async () => {
    expect(await verdictOf(message, {}, NOW)).toBe("dkim-neutral");
  });
});

describe("mailauth's real mail with two Subject fields", () => {
  it.each(["mailauth/message2-duplicate-subject.eml", "mailauth/message4-duplicate-subject.eml"])(
    "%s is refused before any DNS lookup",
    async (file) => {
      expect(await verdictOf(readFixture(file), {}, NOW)).toBe("header-duplicated");
    },
  );
});
