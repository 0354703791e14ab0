// OpenDKIM's milter-test key and fake DNS (pubkeys): messages signed at test time with its key.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { signMessage } from "../../../shared/mail/dkim-sign.ts";
import type { Zone } from "../../../shared/runtime/zone-resolver.ts";
import { FIXTURES, verdictOf } from "../../helpers/conformance.ts";
import { buildMessage } from "../../helpers/dkim-test-keys.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
const privateKeyPem = readFileSync(`${FIXTURES}opendkim/testkey.private`, "utf8");

// pubkeys: one record per line, "name<whitespace>TXT value"
const zone: Zone = Object.fromEntries(
  readFileSync(`${FIXTURES}opendkim/pubkeys`, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [, name = "", value = ""] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
      return [name, { TXT: [[value]] }];
    }),
);

const signed = (selector: string) =>
  signMessage(buildMessage({ from: "Test <user@example.com>" }), {
    domain: "example.com",
    selector,
    privateKeyPem,
    signTime: new Date("2026-05-31T00:00:00Z"),
  });

describe("OpenDKIM test key and fake DNS", () => {
  it("reads the fake DNS", () => {
    expect(Object.keys(zone)).toEqual(
      expect.arrayContaining(["test._domainkey.example.com", "revoked._domainkey.example.com"]),
    );
  });

  it("accepts mail signed with the 1024-bit test key (s=test)", async () => {
    expect(await verdictOf(await signed("test"), zone, NOW)).toBe("accept");
  });

  it("refuses it at a 2048-bit floor", async () => {
    expect(await verdictOf(await signed("test"), zone, NOW, 2048)).toBe("dkim-weak-key");
  });

  it("refuses a revoked key (empty p=, t=y)", async () => {
    expect(await verdictOf(await signed("revoked"), zone, NOW)).toBe("dkim-neutral");
  });

  it("accepts the report selector, which publishes the same key with an extra r= tag", async () => {
    // report._domainkey.example.com publishes the same public key: the signature verifies
    expect(await verdictOf(await signed("report"), zone, NOW)).toBe("accept");
  });

  it("refuses a selector that is not published", async () => {
    expect(await verdictOf(await signed("nosuch"), zone, NOW)).toBe("dkim-neutral");
  });
});
