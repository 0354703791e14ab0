// ValiMail authheaders messages: multi-mailbox and display-name-only From fields.

import { describe, expect, it } from "vitest";
import { proveSenderWith, readFixture, readZone } from "../../helpers/conformance.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
const zone = readZone("authheaders/dns.json");

describe("authheaders messages", () => {
  it.each([
    // one From with two mailboxes of different domains; the signature (example.com) is also
    // broken, but the From alone refuses it, before any DNS lookup
    ["test.message_multi", "address-multiple", "test@example.com"],
    ["test.message_multi2", "address-multiple", "spoof@example.org"],
    // From: "Test User" - a display name and no address: nothing to prove, nothing to show
    ["test.nofrom.message", "address-syntax", null],
    // unsigned input of the upstream tests
    ["test.message", "dkim-none", "test@example.com"],
  ])("%s is refused as %s", async (file, reason, address) => {
    expect(await proveSenderWith(readFixture(`authheaders/${file}`), zone, NOW)).toEqual({
      ok: false,
      reason,
      address,
    });
  });

  it.each([
    // signed by example.com (1024-bit rsa-sha256), From test@example.com
    ["test.message_signed", "Test User"],
    // a comma inside a quoted display name is no second mailbox
    ["testcomma.message", "Test, User"],
  ])("%s is accepted", async (file, displayName) => {
    expect(await proveSenderWith(readFixture(`authheaders/${file}`), zone, NOW)).toMatchObject({
      ok: true,
      address: "test@example.com",
      displayName,
    });
  });
});
