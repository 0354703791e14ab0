import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { describe, expect, it } from "vitest";
import { generateDkimKey, signMessage, zoneRecordFor } from "../../../shared/mail/dkim-sign.ts";
import { loadZoneFile, zoneResolver } from "../../../shared/runtime/zone-resolver.ts";
import { buildMessage } from "../../helpers/dkim-test-keys.ts";

describe("zoneResolver", () => {
  const zone = {
    "sel._domainkey.example.com": { TXT: [["v=DKIM1; ", "p=abc"]] },
    "slow.example.com": { error: "ETIMEOUT" as const },
  };

  it("answers from the zone, case-insensitively and ignoring a root dot, and records each call", async () => {
    const resolve = zoneResolver(zone);
    expect(await resolve("SEL._domainkey.Example.com.", "txt")).toEqual([["v=DKIM1; ", "p=abc"]]);
    expect(resolve.calls).toEqual([{ name: "SEL._domainkey.Example.com.", rrtype: "txt" }]);
  });

  it("hands out copies, so a caller cannot change the zone", async () => {
    const resolve = zoneResolver(zone);
    const first = await resolve("sel._domainkey.example.com", "TXT");
    first[0]?.push("tampered");
    expect(await resolve("sel._domainkey.example.com", "TXT")).toEqual([["v=DKIM1; ", "p=abc"]]);
  });

  it.each([
    ["slow.example.com", "TXT", "ETIMEOUT"],
    ["missing.example.com", "TXT", "ENOTFOUND"],
    ["sel._domainkey.example.com", "MX", "ENODATA"],
  ])("fails %s %s with %s", async (name, rrtype, code) => {
    await expect(zoneResolver(zone)(name, rrtype)).rejects.toMatchObject({ code });
  });

  it("loads and validates a zone file", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-zone-"));
    const good = join(dir, "good.json");
    writeFileSync(good, JSON.stringify(zone));
    expect(loadZoneFile(good)).toEqual(zone);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ "x.example": { error: "EWHATEVER" } }));
    expect(() => loadZoneFile(bad)).toThrow(/invalid DNS zone file/);
    writeFileSync(bad, JSON.stringify({ "x.example": { TXT: "not chunks" } }));
    expect(() => loadZoneFile(bad)).toThrow(/invalid DNS zone file/);
  });
});

describe("dkim-sign", () => {
  it("splits long TXT values into 255-octet strings", () => {
    const value = "x".repeat(600);
    const record = zoneRecordFor("s", "example.com", value);
    const chunks = record["s._domainkey.example.com"]?.TXT[0] ?? [];
    expect(chunks.map((c) => c.length)).toEqual([255, 255, 90]);
    expect(chunks.join("")).toBe(value);
  });

  it.each([
    ["rsa", { bits: 1024 }, /^v=DKIM1; k=rsa; p=MIGfMA0G/],
    ["ed25519", { algorithm: "ed25519" as const }, /^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/],
  ])("makes %s keys whose signatures verify in strict mode", async (_name, opts, txt) => {
    const key = await generateDkimKey(opts);
    expect(key.dnsTxtValue).toMatch(txt);
    expect(key.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const signed = await signMessage(buildMessage(), {
      domain: "example.com",
      selector: "s",
      privateKeyPem: key.privateKeyPem,
    });
    const resolver = zoneResolver(zoneRecordFor("s", "example.com", key.dnsTxtValue));
    const result = await dkimVerify(signed, { resolver, strict: true });
    expect(result.results.map((r) => r.status.result)).toEqual(["pass"]);
  });

  it("writes the options it is given into the signature", async () => {
    const key = await generateDkimKey({ bits: 1024 });
    const signed = await signMessage(buildMessage(), {
      domain: "example.com",
      selector: "s",
      privateKeyPem: key.privateKeyPem,
      algorithm: "rsa-sha1",
      headers: ["From", "Subject"],
      bodyLength: 5,
      canonicalization: "simple/simple",
      signTime: new Date("2026-01-01T00:00:00Z"),
      expires: new Date("2026-01-02T00:00:00Z"),
    });
    const header =
      signed
        .toString()
        .split("\r\nFrom:")[0]
        ?.replace(/\r\n\s+/g, " ") ?? "";
    expect(header).toMatch(/a=rsa-sha1;/);
    expect(header).toMatch(/c=simple\/simple;/);
    // mailauth lists the fields in header order from the bottom up
    expect(header).toMatch(/h=Subject: ?From;/);
    expect(header).toMatch(/l=5;/);
    expect(header).toMatch(/t=1767225600;/);
    expect(header).toMatch(/x=1767312000;/);
  });

  it("throws when it cannot sign (a bug, not a verdict)", async () => {
    const key = await generateDkimKey({ algorithm: "ed25519" });
    await expect(
      signMessage("Subject: no from\r\n\r\nx\r\n", {
        domain: "example.com",
        selector: "s",
        privateKeyPem: key.privateKeyPem,
      }),
    ).rejects.toThrow(/DKIM signing failed/);
  });
});
