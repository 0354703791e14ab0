import { readdirSync } from "node:fs";
import { Writable } from "node:stream";
import fc from "fast-check";
import type { DKIMVerifyResult } from "mailauth";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { describe, expect, it } from "vitest";
import { boundedDkimVerify, CHUNK_BYTES, writeLines } from "../../../shared/gate/dkim-bounded-verify.ts";
import { type Zone, zoneResolver } from "../../../shared/runtime/zone-resolver.ts";
import { FIXTURES, readFixture, readZone } from "../../helpers/conformance.ts";
import { buildMessage, signWith, TEST_SIGN_TIME, testKeys, zoneFor } from "../../helpers/dkim-test-keys.ts";

// The bounded verifier is mailauth's DkimVerifier with a chosen set of signatures and line-aligned chunks. With
// every signature chosen it must give mailauth's own dkimVerify results (its subclass touches internals that
// types/mailauth-internals.d.ts declares; mailauth is pinned exactly, and this fails if they change behaviour).

const NOW = new Date("2026-06-01T00:00:00Z");

/** Writes seen by a Writable, in order. */
function recorder(): { stream: Writable; chunks: Buffer[] } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, chunks };
}

async function both(raw: Buffer, zone: Zone, now: Date) {
  const options = { resolver: zoneResolver(zone), curTime: now, strict: true, minBitLength: 1 };
  const count = (raw.toString("latin1").match(/^dkim-signature:/gim) ?? []).length;
  const ours = await boundedDkimVerify(raw, options, new Set(Array.from({ length: count }, (_, i) => i)));
  const theirs = await dkimVerify(raw, { ...options, resolver: zoneResolver(zone) });
  // mailauth ids a signature without a usable b= with a random UUID
  const plain = (r: DKIMVerifyResult) =>
    JSON.parse(JSON.stringify(r.results).replace(/"id":"[0-9a-f]{8}-[0-9a-f-]{27}"/g, '"id":"(random)"'));
  return { ours: plain(ours), theirs: plain(theirs) };
}

describe("writeLines", () => {
  it("writes the input whole, in chunks that end after a LF at or past the chunk size (or at the end)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(0x0a, 0x0d, 0x61, 0x20), { maxLength: 400 }),
        fc.integer({ min: 1, max: 40 }),
        async (bytes, size) => {
          const input = Buffer.from(bytes);
          const { stream, chunks } = recorder();
          await writeLines(stream, input, size);
          expect(Buffer.concat(chunks)).toEqual(input);
          for (const [i, chunk] of chunks.entries()) {
            if (i === chunks.length - 1) continue;
            expect(chunk.at(-1)).toBe(0x0a);
            expect(chunk.length).toBeGreaterThanOrEqual(size);
            // the first LF at or past the size: none before it, from size - 1 on
            expect(chunk.subarray(size - 1, chunk.length - 1).includes(0x0a)).toBe(false);
          }
        },
      ),
    );
  });

  it("keeps a line longer than the chunk size in one chunk", async () => {
    const long = `${"x".repeat(3 * CHUNK_BYTES)}\r\n`;
    const input = Buffer.from(`a\r\n${long}b\r\n`);
    const { stream, chunks } = recorder();
    await writeLines(stream, input);
    expect(chunks.map((c) => c.toString())).toEqual([`a\r\n${long}`, "b\r\n"]);
  });
});

describe("boundedDkimVerify with every signature chosen is mailauth's dkimVerify", () => {
  it.each(readdirSync(`${FIXTURES}mail-dkim/corpus`).sort())("mail-dkim %s", async (file) => {
    const { ours, theirs } = await both(
      readFixture(`mail-dkim/corpus/${file}`),
      readZone("mail-dkim/fake-dns.json"),
      NOW,
    );
    expect(ours).toEqual(theirs);
  });

  it.each(["rfc8463-signed.eml", "message2-duplicate-subject.eml"])("mailauth %s", async (file) => {
    const { ours, theirs } = await both(
      readFixture(`mailauth/${file}`),
      readZone("mailauth/rfc8463-dns.json"),
      NOW,
    );
    expect(ours).toEqual(theirs);
  });

  it.each(["simple/simple", "relaxed/relaxed"])(
    "a 2 MB one-line body (%s), which mailauth's 64 KB chunks split 32 times",
    async (canonicalization) => {
      const keys = await testKeys();
      const body = `${"word  \t ".repeat((2 * 1024 * 1024) / 8)}\r\n`;
      const raw = await signWith(keys, "rsa2048", buildMessage({ body }), {
        domain: "example.com",
        canonicalization,
      });
      const now = new Date(TEST_SIGN_TIME.getTime() + 60_000);
      const { ours, theirs } = await both(raw, zoneFor(keys, ["example.com"]), now);
      expect(ours).toEqual(theirs);
      expect(ours[0].status.result).toBe("pass");
    },
  );
});
