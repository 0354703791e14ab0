import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseFromHeader, reduceToAddressChars, routingKey } from "../../../shared/gate/address.ts";

const ATEXT = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+$/;
const specialsHeavy = fc.string({
  unit: fc.constantFrom(...'ab@.<>()[]:;,\\" \t=?+-_é\u0430\u200b\r\n'.split("")),
  maxLength: 40,
});
const anyValue = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 60 }),
  specialsHeavy,
);

describe("parseFromHeader properties", () => {
  it("never throws, whatever the input", () => {
    fc.assert(
      fc.property(anyValue, fc.boolean(), (value, allow) => {
        parseFromHeader(value, { allowNonAsciiLocalParts: allow });
      }),
      { numRuns: 3000 },
    );
  });

  it("anything accepted by default is a plain local@domain of atext and LDH characters", () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        const r = parseFromHeader(value);
        if (!r.ok) return;
        const { local, domain, address } = r.address;
        expect(address).toBe(`${local}@${domain}`);
        expect(local.split(".").every((atom) => ATEXT.test(atom))).toBe(true);
        expect(domain).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
        // and it re-parses to itself
        expect(parseFromHeader(address)).toEqual({ ok: true, address: { ...r.address, displayName: "" } });
      }),
      { numRuns: 3000 },
    );
  });

  it("accepts every generated plain address and keeps it intact", () => {
    // hyphens in positions 3-4 are reserved for A-labels (RFC 5891 §4.2.3.1)
    const label = fc
      .stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/)
      .filter((l) => l.slice(2, 4) !== "--");
    const tld = fc.stringMatching(/^[a-z]{2,6}$/);
    const atom = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+\-/=^_`{|}~]{1,8}$/);
    fc.assert(
      fc.property(
        fc.array(atom, { minLength: 1, maxLength: 3 }),
        fc.array(label, { minLength: 1, maxLength: 3 }),
        tld,
        (atoms, labels, top) => {
          const local = atoms.join(".");
          const domain = [...labels, top].join(".");
          expect(parseFromHeader(`Someone <${local}@${domain}>`)).toMatchObject({
            ok: true,
            address: { local, domain },
          });
        },
      ),
    );
  });
});

describe("routingKey properties", () => {
  it("is idempotent and lower-case", () => {
    fc.assert(
      fc.property(fc.oneof(fc.emailAddress(), fc.string({ unit: "grapheme", maxLength: 40 })), (address) => {
        const key = routingKey(address);
        expect(routingKey(key)).toBe(key);
        expect(key).toBe(key.toLowerCase());
      }),
      { numRuns: 2000 },
    );
  });
});

describe("reduceToAddressChars properties", () => {
  it("keeps only address characters, at most 254 of them", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), (s) => {
        expect(reduceToAddressChars(s)).toMatch(/^[A-Za-z0-9.@_+-]{0,254}$/);
      }),
    );
  });
});
