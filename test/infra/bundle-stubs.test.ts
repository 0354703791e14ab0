import { generateKeyPairSync } from "node:crypto";
import { createRequire } from "node:module";
import { defaultProvider as realDefaultProvider } from "@aws-sdk/credential-provider-node";
import { resolveEventStreamSerdeConfig } from "@smithy/core/event-streams";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { defaultProvider as stubDefaultProvider } from "../../infra/bundle-stubs/credential-provider-node.ts";
import { render } from "../../infra/bundle-stubs/dom-serializer.ts";
import { convert } from "../../infra/bundle-stubs/encoding-japanese.ts";
import { decode, encode } from "../../infra/bundle-stubs/iconv-lite.ts";
import * as joiStub from "../../infra/bundle-stubs/joi.ts";
import { extensions, list } from "../../infra/bundle-stubs/libmime-mimetypes.ts";
import { DkimSigner } from "../../infra/bundle-stubs/mailauth-dkim-signer.ts";
import * as eventStreams from "../../infra/bundle-stubs/smithy-event-streams.ts";
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
    [
      "@smithy/core/event-streams marshaller.serialize",
      () => eventStreams.eventStreamSerdeProvider().serialize(),
    ],
    [
      "@smithy/core/event-streams marshaller.deserialize",
      () => eventStreams.eventStreamSerdeProvider().deserialize(),
    ],
    ["@smithy/core/event-streams EventStreamSerde", () => new eventStreams.EventStreamSerde()],
  ])("%s", (name, call) => {
    const before = stubCalls().length;
    expect(call).toThrow(
      new RegExp(`^${name.replace(/[.]/g, "\\.")}.* is stubbed out of this function's bundle`),
    );
    expect(stubCalls().slice(before)).toHaveLength(1);
    expect(stubCalls().at(-1)).toMatch(new RegExp(`^${name.replace(/[.]/g, "\\.")}`));
  });
});

describe("the @smithy/core/event-streams stub", () => {
  it("resolves a client's config as the real resolver does: the provider called once, with the config", () => {
    const resolve = (resolver: typeof resolveEventStreamSerdeConfig) => {
      const calls: unknown[] = [];
      const provider = (i: unknown) => {
        calls.push(i);
        return "marshaller";
      };
      const input = { region: "eu-west-1", eventStreamSerdeProvider: provider };
      const out = resolver(input as unknown as Parameters<typeof resolveEventStreamSerdeConfig>[0]);
      const { eventStreamSerdeProvider, ...rest } = out as unknown as Record<string, unknown>;
      return {
        sameObject: out === (input as object),
        calledWithConfig: calls.map((c) => c === input),
        providerKept: eventStreamSerdeProvider === provider,
        rest,
      };
    };
    const stubbed = eventStreams.resolveEventStreamSerdeConfig as typeof resolveEventStreamSerdeConfig;
    expect(resolve(stubbed)).toEqual(resolve(resolveEventStreamSerdeConfig));
    expect(resolve(stubbed).rest).toEqual({ region: "eu-west-1", eventStreamMarshaller: "marshaller" });
  });
});

describe("the credential-provider-node stub is the default chain's environment link", () => {
  const NAMES = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_CREDENTIAL_EXPIRATION",
    "AWS_CREDENTIAL_SCOPE",
    "AWS_ACCOUNT_ID",
    "AWS_PROFILE",
  ] as const;
  type Env = Partial<Record<(typeof NAMES)[number], string>>;
  const saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));
  const setEnv = (env: Env) => {
    for (const n of NAMES) {
      const v = env[n];
      if (v === undefined) delete process.env[n];
      else process.env[n] = v;
    }
  };
  afterEach(() => setEnv(saved as Env));

  /** What each chain resolves, twice (the second from its memo), in a process whose environment is `env`. */
  async function both(env: Env) {
    setEnv(env);
    const real = realDefaultProvider();
    const stub = stubDefaultProvider();
    const out = { real: [await real(), await real()], stub: [await stub(), await stub()] };
    return out;
  }

  it("resolves exactly what the real chain resolves from Lambda's environment keys, memo included", async () => {
    const value = fc.string({ minLength: 1, maxLength: 20 }).filter((v) => !v.includes("\0"));
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            AWS_ACCESS_KEY_ID: value,
            AWS_SECRET_ACCESS_KEY: value,
            AWS_SESSION_TOKEN: value,
            AWS_CREDENTIAL_EXPIRATION: fc
              .integer({ min: -3_600_000, max: 86_400_000 })
              .map((ms) => new Date(Date.now() + ms).toISOString()),
            AWS_CREDENTIAL_SCOPE: value,
            AWS_ACCOUNT_ID: fc.stringMatching(/^[0-9]{12}$/),
          },
          { requiredKeys: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] },
        ),
        async (env) => {
          const { real, stub } = await both(env);
          expect(stub).toEqual(real);
          expect(stub[0]?.accessKeyId).toBe(env.AWS_ACCESS_KEY_ID);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("as Lambda sets it (key, secret, session token), the signing identity is the same object each call", async () => {
    const { real, stub } = await both({
      AWS_ACCESS_KEY_ID: "ASIAEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "secret",
      AWS_SESSION_TOKEN: "token",
    });
    expect(stub).toEqual(real);
    expect(stub[1]).toBe(stub[0]);
    expect(real[1]).toBe(real[0]);
  });

  it.each([
    ["a profile in AWS_PROFILE", { AWS_PROFILE: "dev", AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s" }],
    ["no keys in the environment", {}],
    ["a key without its secret", { AWS_ACCESS_KEY_ID: "k" }],
  ] as const)("refuses %s by name, and records the call", async (_label, env: Env) => {
    setEnv(env);
    const before = stubCalls().length;
    await expect(stubDefaultProvider()()).rejects.toThrow(
      /^credential-provider-node: .* is stubbed out of this function's bundle/,
    );
    expect(stubCalls().slice(before)).toHaveLength(1);
  });

  it("refuses a profile named in the client's config", async () => {
    setEnv({ AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s" });
    await expect(stubDefaultProvider({ profile: "dev" })()).rejects.toThrow(/profile "dev" is stubbed out/);
  });
});
