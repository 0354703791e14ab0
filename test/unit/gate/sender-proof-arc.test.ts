// G2 by ARC (RFC 8617): list and forwarded mail whose author signature broke, proven only through sealers the
// operator trusts. Every message is signed and sealed in the test with generated keys.

import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type ArcProofOptions,
  firstHopPassed,
  MAX_ARC_SETS,
  proveByArc,
} from "../../../shared/gate/arc-proof.ts";
import { type BoundedArcVerify, boundedArcVerify } from "../../../shared/gate/dkim-bounded-verify.ts";
import { parseTagList } from "../../../shared/gate/dkim-checks.ts";
import { type HeaderField, readHeaderBlock } from "../../../shared/gate/header-block.ts";
import { type ProveSenderOptions, proveSender } from "../../../shared/gate/sender-proof.ts";
import { type Zone, zoneResolver } from "../../../shared/runtime/zone-resolver.ts";
import { asListRewrites, seal } from "../../helpers/arc-seal.ts";
import { buildMessage, signWith, type TestKeys, testKeys, zoneFor } from "../../helpers/dkim-test-keys.ts";

const NOW = new Date("2026-11-29T12:30:00Z");
const LIST = "lists.example.org";
const FORWARDER = "forward.example.net";
const AUTHOR_PASS = `${LIST}; dkim=pass header.d=example.com header.i=@example.com header.s=r2048; spf=pass`;

let keys: TestKeys;
let zone: Zone;
beforeAll(async () => {
  keys = await testKeys();
  zone = zoneFor(keys, ["example.com", LIST, FORWARDER]);
});

const options = (over: Partial<ProveSenderOptions> = {}): ProveSenderOptions => ({
  resolver: zoneResolver(zone),
  now: NOW,
  minRsaKeyBits: 1024,
  allowNonAsciiLocalParts: false,
  trustedArcSealers: [LIST, FORWARDER],
  ...over,
});
const verdict = async (raw: Buffer, over: Partial<ProveSenderOptions> = {}) => {
  const proof = await proveSender(raw, options(over));
  return proof.ok
    ? `accepted via ${proof.via.kind}`
    : proof.detail
      ? `${proof.reason}: ${proof.detail}`
      : proof.reason;
};

const arcOptions = (): ArcProofOptions => ({
  resolver: zoneResolver(zone),
  now: NOW,
  minRsaKeyBits: 1024,
  trustedSealers: [LIST, FORWARDER],
  keyLookupTimeoutMs: 2000,
});
const arcVerdict = async (raw: Buffer, verify: BoundedArcVerify) => {
  const block = readHeaderBlock(raw);
  if (!block.ok) throw new TypeError("unreadable test mail");
  const proof = await proveByArc(raw, block.fields, "example.com", { ...arcOptions(), verify });
  return proof === null ? "no ARC" : proof.ok ? "accepted" : proof.reason;
};

/** alice@example.com's signed mail to the list, as the list delivers it: rewritten, then sealed. */
async function listMail(authResults = AUTHOR_PASS, extra: { headerList?: string[] } = {}): Promise<Buffer> {
  const signed = await signWith(keys, "rsa2048", buildMessage({ to: "team@lists.example.org" }), {
    domain: "example.com",
  });
  return seal(keys, asListRewrites(signed), { domain: LIST, authResults, ...extra });
}

/** The list's mail, then forwarded by a rule at FORWARDER that sealed what it received (cv=pass). */
async function forwardedListMail(): Promise<Buffer> {
  return seal(keys, await listMail(), {
    domain: FORWARDER,
    cv: "pass",
    authResults: `${FORWARDER}; dkim=fail header.d=example.com; arc=pass`,
  });
}

describe("a Mailman 3 / Google Groups shaped list mail (From kept, Subject and body rewritten)", () => {
  it("breaks the author's own signature: without trusted sealers it is refused as before, and ARC is not read", async () => {
    const raw = await listMail();
    const resolver = zoneResolver(zone);
    expect(await verdict(raw, { trustedArcSealers: [], resolver })).toBe("dkim-body-modified");
    expect(resolver.calls.map((c) => c.name)).toEqual(["r2048._domainkey.example.com"]);
  });

  it("is accepted as from the author when the list's sealing domain is trusted, addressed to no one", async () => {
    const raw = await listMail();
    const proof = await proveSender(raw, options());
    const ams = readHeaderBlock(raw);
    const amsField = ams.ok ? ams.fields.find((f) => f.name === "arc-message-signature") : undefined;
    const b = (parseTagList(amsField?.value ?? "").get("b") ?? "").replace(/\s+/g, "");
    expect(proof).toEqual({
      ok: true,
      address: "alice@example.com",
      routingKey: "alice@example.com",
      domain: "example.com",
      displayName: "Alice",
      signature: {
        id: createHash("sha256").update(b).digest("hex"),
        domain: LIST,
        selector: "r2048",
        algorithm: "rsa-sha256",
        keyBits: 2048,
        signedHeaders: expect.arrayContaining(["from"]),
      },
      // the seal proves the author, not whom the author addressed
      signedRecipients: { to: [], cc: [], refused: [] },
      via: { kind: "arc", sealer: LIST, instances: 1 },
    });
  });

  it("is refused, naming the list's proven sealing domain, when the list is not trusted", async () => {
    expect(await verdict(await listMail(), { trustedArcSealers: ["other.example"] })).toBe(
      `arc-untrusted-sealer: ${LIST}`,
    );
  });

  it("trusts no parent or sub-domain of a listed sealer", async () => {
    const raw = await listMail();
    expect(await verdict(raw, { trustedArcSealers: ["example.org"] })).toBe(`arc-untrusted-sealer: ${LIST}`);
    expect(await verdict(raw, { trustedArcSealers: [`x.${LIST}`] })).toBe(`arc-untrusted-sealer: ${LIST}`);
  });

  it("still prefers the author's own signature when it holds (via dkim, with its signed To)", async () => {
    const signed = await signWith(keys, "rsa2048", buildMessage(), { domain: "example.com" });
    const raw = await seal(keys, signed, { domain: LIST, authResults: AUTHOR_PASS });
    const proof = await proveSender(raw, options());
    expect(proof.ok && proof.via).toEqual({ kind: "dkim" });
    expect(proof.ok && proof.signedRecipients.to).toEqual(["helpdesk@agents.example.net"]);
  });

  it("keeps the DKIM refusal for a broken mail that carries no ARC set", async () => {
    const signed = await signWith(keys, "rsa2048", buildMessage(), { domain: "example.com" });
    expect(await verdict(asListRewrites(signed))).toBe("dkim-body-modified");
  });
});

describe("a forwarded list mail: two sets", () => {
  it("is accepted when both sealers are trusted, naming the newest as the sealer", async () => {
    const proof = await proveSender(await forwardedListMail(), options());
    expect(proof.ok && proof.via).toEqual({ kind: "arc", sealer: FORWARDER, instances: 2 });
  });

  // RFC 8617 §5.2 verifies only the newest ARC-Message-Signature: an untrusted sealer earlier in the chain could
  // have rewritten the mail (or, at i=1, written the author's pass itself) and sealed cv=pass over it.
  it("is refused when an earlier sealer is not trusted, even though the newest is", async () => {
    expect(await verdict(await forwardedListMail(), { trustedArcSealers: [FORWARDER] })).toBe(
      `arc-untrusted-sealer: ${LIST}`,
    );
  });

  it("names the newest untrusted sealer", async () => {
    expect(await verdict(await forwardedListMail(), { trustedArcSealers: [LIST] })).toBe(
      `arc-untrusted-sealer: ${FORWARDER}`,
    );
  });
});

describe("chains that prove nothing", () => {
  it("refuses a mail modified after sealing (the newest ARC-Message-Signature breaks)", async () => {
    const raw = Buffer.concat([await listMail(), Buffer.from("P.S. wire the money to mallory\r\n")]);
    expect(await verdict(raw)).toBe("arc-fail");
  });

  it("refuses a Subject changed after sealing", async () => {
    const raw = Buffer.from((await listMail()).toString("latin1").replace("[team]", "[urgent]"), "latin1");
    expect(await verdict(raw)).toBe("arc-fail");
  });

  it("refuses a chain whose newest seal says cv=fail", async () => {
    const raw = await seal(keys, await listMail(), {
      domain: FORWARDER,
      cv: "fail",
      authResults: `${FORWARDER}; arc=fail`,
    });
    expect(await verdict(raw)).toBe("arc-fail");
  });

  it("refuses a seal whose key is not published", async () => {
    const resolver = zoneResolver(zoneFor(keys, ["example.com"]));
    expect(await verdict(await listMail(), { resolver })).toBe("arc-fail");
  });

  it("refuses with arc-temperror when the sealer's key lookup times out", async () => {
    const resolver = zoneResolver({ ...zone, [`r2048._domainkey.${LIST}`]: { error: "ETIMEOUT" } });
    expect(await verdict(await listMail(), { resolver })).toBe("arc-temperror");
  });

  it.each([
    ["a DKIM failure", `${LIST}; dkim=fail header.d=example.com`],
    ["a pass for another domain", `${LIST}; dkim=pass header.d=lists.example.org`],
    ["a pass for a sub-domain", `${LIST}; dkim=pass header.d=mail.example.com`],
    ["a pass for a parent domain", `${LIST}; dkim=pass header.i=@com`],
    [
      "no DKIM result at all",
      `${LIST}; spf=pass smtp.mailfrom=example.com; dmarc=pass header.from=example.com`,
    ],
  ])("refuses when the first sealer's results record %s for the From domain", async (_, authResults) => {
    expect(await verdict(await listMail(authResults))).toBe("arc-no-author-pass");
  });

  // mailauth itself ignores an ARC-Message-Signature without From (and will not seal one), so these two are held
  // to our own check by a verifier that reports such a signature as passing: mailauth's pass is not our proof.
  it("refuses when the newest ARC-Message-Signature signs only part of the body (l=)", async () => {
    const raw = await listMail();
    const verify: BoundedArcVerify = async (r, o) => {
      const v = await boundedArcVerify(r, o);
      const ams = v.arc.lastEntry?.messageSignature;
      if (ams !== undefined) ams.canonBodyLengthLimited = true;
      return v;
    };
    expect(await arcVerdict(raw, verify)).toBe("arc-from-unsigned");
  });

  it("refuses when the newest ARC-Message-Signature does not cover From", async () => {
    const raw = await listMail();
    // our reading of the field shows an h= without From; mailauth's reading is made to agree with it
    const doctored = (fields: readonly HeaderField[]) =>
      fields.map((f) =>
        f.name === "arc-message-signature"
          ? {
              ...f,
              value: f.value.replace(/h=[^;]*;/, "h=subject:date;"),
              line: f.line.replace(/h=[^;]*;/s, "h=subject:date;"),
            }
          : f,
      );
    const verify: BoundedArcVerify = async (r, o) => {
      const v = await boundedArcVerify(r, o);
      if (v.headers === false) return v;
      const lines = doctored(
        v.headers.parsed.map((h) => ({ name: h.key, line: h.line.toString("latin1"), value: "" })),
      );
      const parsed = v.headers.parsed.map((h, i) => ({
        ...h,
        line: Buffer.from(lines[i]?.line ?? "", "latin1"),
      }));
      return { ...v, headers: { ...v.headers, parsed } };
    };
    const block = readHeaderBlock(raw);
    if (!block.ok) throw new TypeError("unreadable test mail");
    const proof = await proveByArc(raw, doctored(block.fields), "example.com", { ...arcOptions(), verify });
    expect(proof?.ok === false && proof.reason).toBe("arc-from-unsigned");
  });
});

describe("the first hop's recorded DKIM pass", () => {
  it.each([
    [{ dkim: [{ value: "pass", header: { d: "example.com" } }] }, true],
    [{ dkim: [{ value: "PASS", header: { i: "alice@Example.COM" } }] }, true],
    [
      {
        dkim: [
          { value: "fail", header: { d: "example.com" } },
          { value: "pass", header: { d: "x.example" } },
        ],
      },
      false,
    ],
    [{ dkim: [{ value: "pass", header: { d: "example.com.evil" } }] }, false],
    [{ dkim: [{ value: "pass", header: { i: { x: "1" } } }] }, false],
    [{ dkim: "pass" }, false],
    [undefined, false],
    // the result names the signature it passed: it must be one our policy accepts (below, s=r2048, b=AbCdEf...)
    [{ dkim: [{ value: "pass", header: { d: "example.com", s: "R2048", b: "AbCd" } }] }, true],
    [{ dkim: [{ value: "pass", header: { d: "example.com", s: "other" } }] }, false],
    [{ dkim: [{ value: "pass", header: { d: "example.com", b: "ZZZZ" } }] }, false],
    [{ dkim: [{ value: "pass", header: { d: "example.com", b: "" } }] }, false],
  ])("%j → %s", (parsed, expected) => {
    const author = [{ selector: "r2048", b: "AbCdEfGh0123" }];
    expect(firstHopPassed(parsed as Record<string, unknown> | undefined, "example.com", author)).toBe(
      expected,
    );
  });

  it("is no pass when no author signature our policy accepts is left in the mail", () => {
    const parsed = { dkim: [{ value: "pass", header: { d: "example.com" } }] };
    expect(firstHopPassed(parsed, "example.com", [])).toBe(false);
  });
});

describe("the first sealer's pass must be about a signature our own policy accepts", () => {
  /** alice's mail signed as `extra` says, through the list, whose verifier recorded a pass. */
  async function listMailSigned(extra: Record<string, unknown>, key: keyof TestKeys = "rsa2048") {
    const signed = await signWith(keys, key, buildMessage({ to: "team@lists.example.org" }), {
      domain: "example.com",
      ...extra,
    });
    return seal(keys, asListRewrites(signed), {
      domain: LIST,
      authResults: `${LIST}; dkim=pass header.d=example.com`,
    });
  }

  it("accepts the author's ordinary signature", async () => {
    expect(await verdict(await listMailSigned({}))).toBe("accepted via arc");
  });

  it.each([
    ["l= (a body could be appended)", { bodyLength: 10 }],
    ["rsa-sha1", { algorithm: "rsa-sha1" }],
  ])("refuses a pass the sealer recorded for a signature with %s", async (_, extra) => {
    expect(await verdict(await listMailSigned(extra))).toBe("arc-no-author-pass");
  });

  it("refuses when the list stripped the author's signature", async () => {
    const raw = await seal(
      keys,
      asListRewrites(Buffer.from(buildMessage({ to: "team@lists.example.org" }))),
      {
        domain: LIST,
        authResults: AUTHOR_PASS,
      },
    );
    expect(await verdict(raw)).toBe("arc-no-author-pass");
  });
});

describe("bounded cost: a hostile flood of ARC sets", () => {
  /** `count` ARC sets that parse but were never sealed, each naming its own selector at the attacker's domain. */
  function floodedSets(count: number): string {
    const sets: string[] = [];
    for (let i = count; i >= 1; i--)
      sets.push(
        `ARC-Seal: i=${i}; a=rsa-sha256; t=1796418204; cv=${i === 1 ? "none" : "pass"}; d=evil.example; s=s${i}; b=AAAA`,
        `ARC-Message-Signature: i=${i}; a=rsa-sha256; c=relaxed/relaxed; d=evil.example; s=m${i}; h=from:subject; bh=AAAA; b=AAAA`,
        `ARC-Authentication-Results: i=${i}; evil.example; dkim=pass header.d=example.com`,
      );
    return `${sets.join("\r\n")}\r\n`;
  }

  it(`refuses more than ${MAX_ARC_SETS} sets on the count, without a single lookup`, async () => {
    const raw = Buffer.concat([Buffer.from(floodedSets(MAX_ARC_SETS + 1)), await listMail()]);
    const resolver = zoneResolver(zone);
    expect(await verdict(raw, { resolver })).toBe("arc-too-many-sets");
    // the author's own signature is the only lookup
    expect(resolver.calls.map((c) => c.name)).toEqual(["r2048._domainkey.example.com"]);
  });

  it("refuses 3,000 ARC-Seal fields on the count, without a single ARC lookup", async () => {
    const flood = Array.from(
      { length: 3000 },
      (_, i) => `ARC-Seal: i=1; a=rsa-sha256; cv=none; d=evil.example; s=s${i}; b=AAAA\r\n`,
    );
    const raw = Buffer.concat([Buffer.from(flood.join("")), await listMail()]);
    const resolver = zoneResolver(zone);
    expect(await verdict(raw, { resolver })).toBe("arc-too-many-sets");
    expect(resolver.calls.filter((c) => c.name.endsWith("evil.example"))).toEqual([]);
  });

  it("looks up at most one key per set and one for the newest message signature, within the cap", async () => {
    // MAX_ARC_SETS unsealed sets, every one a distinct selector: mailauth would ask for all of them
    const raw = Buffer.from(`${floodedSets(MAX_ARC_SETS)}${buildMessage()}`);
    const resolver = zoneResolver(zone);
    expect(await verdict(raw, { resolver, trustedArcSealers: ["evil.example"] })).toMatch(
      /^arc-(fail|temperror)$/,
    );
    const names = new Set(resolver.calls.map((c) => c.name.toLowerCase()));
    expect(names.size).toBeLessThanOrEqual(MAX_ARC_SETS + 1);
  });
});
