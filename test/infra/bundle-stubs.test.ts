import { generateKeyPairSync } from "node:crypto";
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { render } from "../../infra/bundle-stubs/dom-serializer.ts";
import { convert } from "../../infra/bundle-stubs/encoding-japanese.ts";
import { decode, encode } from "../../infra/bundle-stubs/iconv-lite.ts";
import * as joiStub from "../../infra/bundle-stubs/joi.ts";
import { extensions, list } from "../../infra/bundle-stubs/libmime-mimetypes.ts";
import { DkimSigner } from "../../infra/bundle-stubs/mailauth-dkim-signer.ts";
import { stubCalls } from "../../infra/bundle-stubs/unreachable.ts";

// The stubs of infra/bundling.ts VERIFY_STUBS: the joi one is the one schema mailauth builds, rule for rule; every
// other one throws an error naming itself and records the call (a caller such as libmime may swallow the error).

// The Joi mailauth itself resolves, not whatever a test could import.
const fromMailauth = createRequire(createRequire(import.meta.url).resolve("mailauth/lib/tools.js"));
const Joi = fromMailauth("joi") as {
  string(): { base64(o: object): { validate(v: unknown): { value: unknown; error?: Error } } };
};

const theirs = Joi.string().base64({ paddingRequired: false });
const ours = joiStub.string().base64({ paddingRequired: false });
const same = (value: unknown) => {
  const a = theirs.validate(value);
  const b = ours.validate(value);
  expect(b.value).toBe(a.value);
  expect(b.error?.message).toBe(a.error?.message);
};

describe("the joi stub is mailauth's one Joi schema", () => {
  it("agrees with Joi on base64-like strings, padding and all", () => {
    const alphabet = fc.constantFrom(..."ABCxyz019+/=-_ \t\r\n.".split(""));
    fc.assert(fc.property(fc.string({ unit: alphabet, maxLength: 40 }), (s) => same(s)));
  });

  it("agrees with Joi on arbitrary strings and non-strings", () => {
    fc.assert(fc.property(fc.string(), (s) => same(s)));
    for (const v of [
      undefined,
      null,
      0,
      1,
      true,
      {},
      [],
      "",
      " ",
      "=",
      "==",
      "A",
      "AB",
      "ABC",
      "ABCD",
      "AB==",
    ])
      same(v);
  });

  it("agrees on real DKIM key records' p= values: RSA 2048 (SPKI) and ed25519 (bare key, RFC 8463)", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({
      type: "spki",
      format: "der",
    });
    const ed = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" });
    same(rsa.toString("base64"));
    same(ed.subarray(ed.length - 32).toString("base64"));
    same(rsa.toString("base64").replace(/=+$/, ""));
  });

  it("throws for any other use of Joi", () => {
    expect(() => joiStub.string("x")).toThrow(/joi\.string\(\.\.\.\) is stubbed out/);
    expect(() => joiStub.string().base64({ paddingRequired: true })).toThrow(/stubbed out/);
    expect(() => joiStub.string().base64({ paddingRequired: false }).validate("a", {})).toThrow(
      /stubbed out/,
    );
  });
});

describe("every other stub throws an error naming it, and records the call", () => {
  it.each([
    ["iconv-lite.decode", () => decode(Buffer.from("x"), "KOI8-R")],
    ["iconv-lite.encode", () => encode("x", "KOI8-R")],
    ["encoding-japanese.convert", () => convert(Buffer.from("x"), { from: "SJIS" })],
    ["dom-serializer.render", () => render()],
    ["libmime mimetypes.list", () => Object.hasOwn(list, "text/plain")],
    ["libmime mimetypes.extensions", () => (extensions as Record<string, unknown>).txt],
    ["mailauth DkimSigner", () => new DkimSigner()],
  ])("%s", (name, call) => {
    const before = stubCalls().length;
    expect(call).toThrow(
      new RegExp(`^${name.replace(/[.]/g, "\\.")}.* is stubbed out of this function's bundle`),
    );
    expect(stubCalls().slice(before)).toHaveLength(1);
    expect(stubCalls().at(-1)).toMatch(new RegExp(`^${name.replace(/[.]/g, "\\.")}`));
  });
});
