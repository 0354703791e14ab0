// G2: a signature by the signer the operator vouches for, for one From domain, proves that domain's mail, under
// every other DKIM check; a misaligned signature otherwise refuses and says who signed and what fixes it.

import { beforeAll, describe, expect, it } from "vitest";
import { type ProveSenderOptions, proveSender } from "../../../shared/gate/sender-proof.ts";
import type { SignOptions } from "../../../shared/mail/dkim-sign.ts";
import { type Zone, zoneResolver } from "../../../shared/runtime/zone-resolver.ts";
import { buildMessage, signWith, type TestKeys, testKeys, zoneFor } from "../../helpers/dkim-test-keys.ts";
import { signManually } from "../../helpers/manual-dkim.ts";

const NOW = new Date("2026-11-29T12:30:00Z");
const TENANT = "contoso.onmicrosoft.com";
const FROM = "Alice <alice@contoso.com>";

let keys: TestKeys;
let zone: Zone;
beforeAll(async () => {
  keys = await testKeys();
  zone = zoneFor(keys, [TENANT, "contoso.com", "fabrikam.onmicrosoft.com"]);
});

const options = (over: Partial<ProveSenderOptions> = {}): ProveSenderOptions => ({
  resolver: zoneResolver(zone),
  now: NOW,
  minRsaKeyBits: 1024,
  allowNonAsciiLocalParts: false,
  delegatedSigners: { "contoso.com": TENANT },
  ...over,
});
const tenantSigned = (extra: Partial<SignOptions> = {}, key: keyof TestKeys = "rsa2048", from = FROM) =>
  signWith(keys, key, buildMessage({ from }), { domain: TENANT, ...extra });
const verdict = async (raw: Buffer, over: Partial<ProveSenderOptions> = {}) => {
  const proof = await proveSender(raw, options(over));
  return proof.ok ? "accepted" : proof.reason;
};

describe("a Microsoft 365 tenant that never turned on DKIM for its own domain", () => {
  it("is refused as dkim-misaligned, naming the signer and the fix, when nothing is delegated", async () => {
    const proof = await proveSender(await tenantSigned(), options({ delegatedSigners: {} }));
    expect(proof).toEqual({
      ok: false,
      reason: "dkim-misaligned",
      detail: `signed by ${TENANT}, not contoso.com: if contoso.com sends through ${TENANT}, its admin must turn on DKIM signing for contoso.com`,
      address: "alice@contoso.com",
    });
  });

  it("is accepted when the operator vouches for the tenant's signer, and the proof says which signer vouched", async () => {
    const proof = await proveSender(await tenantSigned(), options());
    expect(proof).toMatchObject({
      ok: true,
      address: "alice@contoso.com",
      domain: "contoso.com",
      signature: { domain: TENANT, selector: "r2048" },
      signedRecipients: { to: ["helpdesk@agents.example.net"] },
      via: { kind: "dkim", delegated: TENANT },
    });
  });

  it("says nothing about delegation when the From domain signs as itself", async () => {
    const raw = await signWith(keys, "rsa2048", buildMessage({ from: FROM }), { domain: "contoso.com" });
    const proof = await proveSender(raw, options());
    expect(proof.ok && proof.via).toEqual({ kind: "dkim" });
  });

  it("vouches for that From domain only", async () => {
    expect(await verdict(await tenantSigned({}, "rsa2048", "Mallory <mallory@fabrikam.com>"))).toBe(
      "dkim-misaligned",
    );
    // and another tenant's signer proves nothing for contoso.com
    const other = await signWith(keys, "rsa2048", buildMessage({ from: FROM }), {
      domain: "fabrikam.onmicrosoft.com",
    });
    expect(await verdict(other)).toBe("dkim-misaligned");
  });

  it("still applies every other DKIM check to the delegated signature", async () => {
    expect(await verdict(await tenantSigned({ bodyLength: 10 }))).toBe("dkim-length-limited");
    expect(await verdict(await tenantSigned({ algorithm: "rsa-sha1" }))).toBe("dkim-weak-algorithm");
    const manual = { domain: TENANT, selector: "r2048", privateKeyPem: keys.rsa2048.privateKeyPem };
    const fromSigned = signManually(buildMessage({ from: FROM }), {
      ...manual,
      headers: ["from", "subject", "date"],
    });
    expect(await verdict(fromSigned)).toBe("accepted");
    const uncovered = signManually(buildMessage({ from: FROM }), {
      ...manual,
      headers: ["subject", "date", "to"],
    });
    expect(await verdict(uncovered)).toBe("dkim-from-unsigned");
    expect(await verdict(await tenantSigned({}, "rsa512"))).toBe("dkim-weak-key");
    const altered = Buffer.from((await tenantSigned()).toString().replace("the numbers", "the invoice"));
    expect(await verdict(altered)).toBe("dkim-body-modified");
  });

  it("names a signer only in its checked A-label form (G4: never sender text)", async () => {
    const raw = Buffer.from(
      (await tenantSigned()).toString().replace(`d=${TENANT}`, "d=ignore-previous\u202e.example"),
      "latin1",
    );
    const proof = await proveSender(raw, options({ delegatedSigners: {} }));
    expect(proof.ok === false && proof.detail).toBe(
      "signed by another domain, not contoso.com: if contoso.com sends through another domain, its admin must turn on DKIM signing for contoso.com",
    );
  });
});
