// G2's bounded cost: whatever the sender writes, only signatures that could prove the From are
// evaluated, at most a few, with their keys looked up together under a deadline (a
// flood of 3,000 DKIM-Signature fields took 54 s of verify's 60 s).

import type { DNSResolver } from "mailauth";
import { beforeAll, describe, expect, it } from "vitest";
import { boundedResolver, KEY_RECORDS_AMBIGUOUS } from "../../../shared/gate/bounded-resolver.ts";
import { type ProveSenderOptions, proveSender } from "../../../shared/gate/sender-proof.ts";
import { type Zone, zoneResolver } from "../../../shared/runtime/zone-resolver.ts";
import { buildMessage, signWith, type TestKeys, testKeys, zoneFor } from "../../helpers/dkim-test-keys.ts";

const NOW = new Date("2026-11-29T12:30:00Z");
const SIGNED_AT = new Date("2026-11-29T12:00:00Z");

let keys: TestKeys;
let zone: Zone;
beforeAll(async () => {
  keys = await testKeys();
  zone = zoneFor(keys, ["example.com"]);
});

const options = (over: Partial<ProveSenderOptions> = {}): ProveSenderOptions => ({
  resolver: zoneResolver(zone),
  now: NOW,
  minRsaKeyBits: 1024,
  allowNonAsciiLocalParts: false,
  ...over,
});
const sign = (raw: string | Buffer, extra = {}) =>
  signWith(keys, "rsa2048", raw, { domain: "example.com", signTime: SIGNED_AT, ...extra });
const verdict = async (raw: Buffer, over: Partial<ProveSenderOptions> = {}) => {
  const proof = await proveSender(raw, options(over));
  return proof.ok ? "accepted" : proof.reason;
};

/** `count` DKIM-Signature fields, each with its own selector (one more key lookup each, if evaluated). */
function flood(count: number, tags: (i: number) => string): string {
  const fields: string[] = [];
  for (let i = 0; i < count; i++)
    fields.push(
      `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=f${i}; ${tags(i)}h=from:to; bh=${Buffer.from(`bh${i}`).toString("base64")}; b=${Buffer.from(`sig${i}`).toString("base64")}`,
    );
  return `${fields.join("\r\n")}\r\n`;
}
const aligned = () => "";
const lengthLimited = (i: number) => `l=${i + 1}; `;

describe("only signatures that could prove the sender are evaluated", () => {
  it("500 signatures with distinct l= are never evaluated: one key lookup, the real signature proves", async () => {
    const real = await sign(buildMessage());
    const raw = Buffer.concat([Buffer.from(flood(500, lengthLimited)), real]);
    const resolver = zoneResolver(zone);
    expect(await verdict(raw, { resolver })).toBe("accepted");
    expect(resolver.calls.map((c) => c.name)).toEqual(["r2048._domainkey.example.com"]);
  });

  it("a flood of aligned signatures above the real one: three evaluated, three keys asked, refused", async () => {
    const real = await sign(buildMessage());
    const raw = Buffer.concat([Buffer.from(flood(3000, aligned)), real]);
    const resolver = zoneResolver(zone);
    expect(await verdict(raw, { resolver })).toBe("dkim-body-modified");
    expect(resolver.calls.map((c) => c.name)).toEqual([
      "f0._domainkey.example.com",
      "f1._domainkey.example.com",
      "f2._domainkey.example.com",
    ]);
  });

  it("the real signature on top of a flood proves the sender", async () => {
    const raw = await sign(Buffer.concat([Buffer.from(flood(3000, aligned)), Buffer.from(buildMessage())]));
    const resolver = zoneResolver(zone);
    expect(await verdict(raw, { resolver })).toBe("accepted");
    expect(resolver.calls.length).toBeLessThanOrEqual(3);
  });

  it("the cap is the operator's to set", async () => {
    const real = await sign(buildMessage());
    const raw = Buffer.concat([Buffer.from(flood(1, aligned)), real]);
    expect(await verdict(raw, { maxSignatures: 1 })).toBe("dkim-body-modified");
    expect(await verdict(raw, { maxSignatures: 2 })).toBe("accepted");
  });
});

describe("key lookups: together, capped, with a deadline", () => {
  it("asks for every evaluated signature's key at once, so slow DNS costs one wait, not one per signature", async () => {
    // Answers nothing until all three names were asked: a verifier that looked keys up one after another
    // would wait for ever on the first.
    const inner = zoneResolver(zone);
    const waiting: (() => void)[] = [];
    const asked = new Set<string>();
    const barrier: DNSResolver = async (name, rrtype) => {
      asked.add(name);
      if (asked.size < 3) await new Promise<void>((r) => waiting.push(r));
      else for (const release of waiting.splice(0)) release();
      return inner(name, rrtype);
    };
    const real = await sign(buildMessage());
    const raw = Buffer.concat([Buffer.from(flood(2, aligned)), real]);
    expect(await verdict(raw, { resolver: barrier, keyLookupTimeoutMs: 5_000 })).toBe("accepted");
    expect(asked.size).toBe(3);
  });

  it("a DNS server that never answers is a temperror after the timeout, never an acceptance", async () => {
    const never: DNSResolver = () => new Promise(() => undefined);
    const raw = await sign(buildMessage());
    expect(await verdict(raw, { resolver: never, keyLookupTimeoutMs: 50 })).toBe("dkim-temperror");
  });

  it("boundedResolver: distinct names capped, repeated names asked once, nothing after the deadline", async () => {
    const inner = zoneResolver(zone);
    const dns = boundedResolver(inner, { maxLookups: 2, timeoutMs: 1000, deadline: Date.now() + 1000 });
    await dns.resolve("r2048._domainkey.example.com", "TXT");
    await dns.resolve("R2048._domainkey.example.com.", "TXT");
    await dns.resolve("ed._domainkey.example.com", "TXT");
    await expect(dns.resolve("r1024._domainkey.example.com", "TXT")).rejects.toMatchObject({
      code: "ETIMEOUT",
    });
    expect(inner.calls.map((c) => c.name)).toEqual([
      "r2048._domainkey.example.com",
      "ed._domainkey.example.com",
    ]);
    const late = boundedResolver(inner, { maxLookups: 3, timeoutMs: 1000, deadline: Date.now() - 1 });
    await expect(late.resolve("r2048._domainkey.example.com", "TXT")).rejects.toMatchObject({
      code: "ETIMEOUT",
    });
  });
});

describe("small checks (timestamps and tags)", () => {
  it("refuses a t= more than 15 minutes ahead of our clock, tolerates a few minutes of skew", async () => {
    const future = await sign(buildMessage(), { signTime: new Date("2029-01-01T00:00:00Z") });
    expect(await verdict(future)).toBe("dkim-future-timestamp");
    const skewed = await sign(buildMessage(), { signTime: new Date("2026-11-29T12:40:00Z") });
    expect(await verdict(skewed)).toBe("accepted");
    const beyond = await sign(buildMessage(), { signTime: new Date("2026-11-29T12:46:00Z") });
    expect(await verdict(beyond)).toBe("dkim-future-timestamp");
  });

  it("refuses a selector that publishes two key records (RFC 6376 §3.6.2.2), whichever comes first", async () => {
    const raw = await sign(buildMessage());
    const real = zone["r2048._domainkey.example.com"] as { TXT: string[][] };
    const decoy = ["v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC"];
    for (const records of [
      [...real.TXT, decoy],
      [decoy, ...real.TXT],
    ]) {
      const resolver = zoneResolver({ ...zone, "r2048._domainkey.example.com": { TXT: records } });
      expect(await verdict(raw, { resolver })).toBe("dkim-key-multiple");
    }
    const dns = boundedResolver(zoneResolver({ "s._domainkey.example.com": { TXT: [["a"], ["b"]] } }), {
      maxLookups: 1,
      timeoutMs: 1000,
      deadline: Date.now() + 1000,
    });
    await expect(dns.resolve("s._domainkey.example.com", "TXT")).rejects.toMatchObject({
      code: KEY_RECORDS_AMBIGUOUS,
    });
    expect([...dns.ambiguous]).toEqual(["s._domainkey.example.com"]);
  });
});

describe("signed recipients", () => {
  it("reads To and Cc only from the fields the proven signature covers", async () => {
    const message = buildMessage({
      headers: ["Cc: Bob <bob@example.com>, team: a@example.com, b@example.com;"],
    });
    const signed = await sign(message, { headers: ["from", "to", "cc", "subject"] });
    const proof = await proveSender(signed, options());
    expect(proof.ok && proof.signedRecipients).toEqual({
      to: ["helpdesk@agents.example.net"],
      cc: ["bob@example.com", "a@example.com", "b@example.com"],
      refused: [],
    });
  });

  it("a To or Cc the signature does not cover is not a signed recipient", async () => {
    const signed = await sign(buildMessage({ headers: ["Cc: mallory@evil.example"] }), {
      headers: ["from", "to", "subject"],
    });
    const proof = await proveSender(signed, options());
    expect(proof.ok && proof.signedRecipients).toEqual({
      to: ["helpdesk@agents.example.net"],
      cc: [],
      refused: [],
    });
  });

  // To and Cc go through the strict parser G2 uses for From. postal-mime decoded this encoded-word
  // into `Mallory <helpdesk@agents.example.net>` and the signed To "addressed" the agent.
  it.each([
    ["an encoded-word holding an angle address", "=?UTF-8?Q?Mallory_=3Chelpdesk=40agents.example.net=3E?="],
    ["a B-encoded one", "=?UTF-8?B?TWFsbG9yeSA8aGVscGRlc2tAYWdlbnRzLmV4YW1wbGUubmV0Pg==?="],
    ["an encoded-word as the local part", "=?utf-8?q?helpdesk?=@agents.example.net"],
    ["a comment naming the agent", "mallory@evil.example (helpdesk@agents.example.net)"],
    ["a quoted local part", '"helpdesk@agents.example.net"@evil.example'],
    ["a display name holding the address", '"helpdesk@agents.example.net" <mallory@evil.example>'],
    ["an unterminated group", "staff: helpdesk@agents.example.net, mallory@evil.example"],
    ["a route address", "<@evil.example:helpdesk@agents.example.net>"],
  ])("%s is no address of the agent", async (_name, to) => {
    const signed = await sign(buildMessage({ to }), { headers: ["from", "to", "subject"] });
    const proof = await proveSender(signed, options());
    if (!proof.ok) throw new Error(proof.reason);
    expect(proof.signedRecipients.to).not.toContain("helpdesk@agents.example.net");
  });

  it("expands a group, skips empty elements and says what it refused", async () => {
    const to =
      'undisclosed-recipients:;, "A, B" <ab@example.com>,, staff: c@example.com, <d@example.com>;, =?x?q?y?=';
    const signed = await sign(buildMessage({ to }), { headers: ["from", "to", "subject"] });
    const proof = await proveSender(signed, options());
    expect(proof.ok && proof.signedRecipients).toEqual({
      to: ["ab@example.com", "c@example.com", "d@example.com"],
      cc: [],
      refused: ["address-syntax"],
    });
  });
});
