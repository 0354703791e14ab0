// What proveSender hands the DKIM verifier and how it reads the answer back (G2), seen through a verifier that
// asks for more than it should or reports less than a pass: the DNS it gets is bounded in lookups and in time,
// and a refusal names the nearest miss of every signature, those refused on their tags alone included.

import { beforeAll, describe, expect, it, vi } from "vitest";
import { type BoundedVerify, boundedDkimVerify } from "../../../shared/gate/dkim-bounded-verify.ts";
import { type ProveSenderOptions, proveSender } from "../../../shared/gate/sender-proof.ts";
import { type Zone, zoneResolver } from "../../../shared/runtime/zone-resolver.ts";
import { buildMessage, signWith, type TestKeys, testKeys, zoneFor } from "../../helpers/dkim-test-keys.ts";

const NOW = new Date("2026-11-29T12:30:00Z");
const SIGNED_AT = new Date("2026-11-29T12:00:00Z");

let keys: TestKeys;
let zone: Zone;
beforeAll(async () => {
  keys = await testKeys();
  zone = zoneFor(keys, ["example.com", "evil.example"]);
});

const options = (over: Partial<ProveSenderOptions> = {}): ProveSenderOptions => ({
  resolver: zoneResolver(zone),
  now: NOW,
  minRsaKeyBits: 1024,
  allowNonAsciiLocalParts: false,
  ...over,
});
const sign = (raw: string | Buffer, domain = "example.com") =>
  signWith(keys, "rsa2048", raw, { domain, signTime: SIGNED_AT });
const verdict = async (raw: Buffer, over: Partial<ProveSenderOptions> = {}) => {
  const proof = await proveSender(raw, options(over));
  return proof.ok ? "accepted" : proof.reason;
};
const alignedFlood = (count: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=f${i}; h=from:to; bh=YmgK; b=c2lnCg==\r\n`,
  ).join("");

describe("the DNS the verifier gets", () => {
  it("answers at most one key lookup per chosen signature, whatever else the verifier asks", async () => {
    const resolver = zoneResolver(zone);
    const curious: BoundedVerify = async (raw, opts, selection) => {
      const result = await boundedDkimVerify(raw, opts, selection);
      for (const name of ["a", "b", "c"])
        await opts.resolver?.(`${name}._domainkey.example.com`, "TXT").catch(() => undefined);
      return result;
    };
    expect(await verdict(await sign(buildMessage()), { resolver, verify: curious })).toBe("accepted");
    expect(resolver.calls.map((c) => c.name)).toEqual(["r2048._domainkey.example.com"]);
  });

  it("waits on DNS one timeout in all, even for lookups made one after another", async () => {
    const never = () => new Promise<string[][]>(() => undefined);
    const oneByOne: BoundedVerify = async (raw, opts, selection) => {
      for (const name of ["a", "b", "c"])
        await opts.resolver?.(`${name}._domainkey.example.com`, "TXT").catch(() => undefined);
      return boundedDkimVerify(raw, opts, selection);
    };
    // three chosen signatures, so three lookups are allowed: only the deadline keeps them to one wait
    const raw = Buffer.concat([Buffer.from(alignedFlood(2)), await sign(buildMessage())]);
    // An injected clock: fake timers move only when told to, so the wait is counted exactly, however busy the machine.
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    try {
      const started = Date.now();
      let settled = false;
      const result = verdict(raw, { resolver: never, verify: oneByOne, keyLookupTimeoutMs: 200 }).finally(
        () => {
          settled = true;
        },
      );
      // run each timer as it comes due (and let real I/O in between) until the proof is done
      while (!settled) {
        await vi.advanceTimersToNextTimerAsync();
        await new Promise((res) => setImmediate(res));
      }
      expect(await result).toBe("dkim-temperror");
      const waitedOnTheFakeClock = Date.now() - started;
      expect(waitedOnTheFakeClock).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the refusal's reason", () => {
  it("is the nearest miss of every signature, those refused on their tags alone included", async () => {
    // a misaligned signature (refused on its tags) above the aligned one, which the verifier reports as `none`
    const raw = await sign(await sign(buildMessage()), "evil.example");
    const none: BoundedVerify = async (input, opts, selection) => {
      const result = await boundedDkimVerify(input, opts, selection);
      const results = result.results.map((r) => ({ ...r, status: { ...r.status, result: "none" as const } }));
      return Object.defineProperty({ ...result, results }, "headers", { value: result.headers });
    };
    expect(await verdict(raw, { verify: none })).toBe("dkim-misaligned");
  });
});
