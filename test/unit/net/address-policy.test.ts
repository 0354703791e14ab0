import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAddress, isPublicAddress } from "../../../shared/net/address-policy.ts";

describe("address policy", () => {
  it.each([
    ["127.0.0.1", "ipv4-loopback"],
    ["127.255.0.9", "ipv4-loopback"],
    ["10.0.0.1", "ipv4-private"],
    ["172.16.5.4", "ipv4-private"],
    ["172.31.255.255", "ipv4-private"],
    ["192.168.1.1", "ipv4-private"],
    ["169.254.169.254", "ipv4-linkLocal"],
    ["100.64.0.1", "ipv4-carrierGradeNat"],
    ["0.0.0.0", "ipv4-unspecified"],
    ["0.1.2.3", "ipv4-unspecified"],
    ["224.0.0.1", "ipv4-multicast"],
    ["255.255.255.255", "ipv4-broadcast"],
    ["192.0.2.10", "ipv4-reserved"],
    ["198.51.100.7", "ipv4-reserved"],
    ["203.0.113.9", "ipv4-reserved"],
    ["198.18.0.1", "ipv4-reserved"],
    ["240.0.0.1", "ipv4-reserved"],
    ["::1", "ipv6-loopback"],
    ["::", "ipv6-unspecified"],
    ["fe80::1", "ipv6-linkLocal"],
    ["fe80::1%eth0", "ipv6-linkLocal"],
    ["fc00::1", "ipv6-uniqueLocal"],
    ["fd12:3456::1", "ipv6-uniqueLocal"],
    ["ff02::1", "ipv6-multicast"],
    ["2001:db8::1", "ipv6-reserved"],
    ["2001::1", "ipv6-teredo"],
    ["fec0::1", "ipv6-deprecatedSiteLocal"],
    ["::ffff:127.0.0.1", "ipv4-mapped-ipv4-loopback"],
    ["::ffff:7f00:1", "ipv4-mapped-ipv4-loopback"],
    ["::ffff:10.0.0.1", "ipv4-mapped-ipv4-private"],
    ["::ffff:169.254.169.254", "ipv4-mapped-ipv4-linkLocal"],
    ["::7f00:1", "ipv6-not-global"],
    ["::127.0.0.1", "ipv6-not-global"],
    // IPv4-compatible (deprecated), not mapped: ipaddr.js alone would read this as ::ffff:8.8.8.8 and admit it.
    ["::8.8.8.8", "ipv6-not-global"],
    ["64:ff9b::7f00:1", "nat64-ipv4-loopback"],
    ["64:ff9b::10.0.0.1", "nat64-ipv4-private"],
    ["64:ff9b:1::1", "ipv6-rfc6052"],
    ["2002:a00:1::", "6to4-ipv4-private"],
    ["2002:7f00:1::1", "6to4-ipv4-loopback"],
    ["0x7f.1", "invalid"],
    ["2130706433", "invalid"],
    ["127.1", "invalid"],
    ["localhost", "invalid"],
  ])("refuses %s (%s)", (address, range) => {
    expect(checkAddress(address)).toEqual({ ok: false, reason: range });
  });

  it.each([
    "93.184.215.14",
    "8.8.8.8",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("admits the public address %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it("judges every IPv4-mapped and NAT64 form exactly as the IPv4 address it reaches", () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const [a = 0, b = 0, c = 0, d = 0] = v4.split(".").map(Number);
        const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        const expected = isPublicAddress(v4);
        expect(isPublicAddress(`::ffff:${v4}`)).toBe(expected);
        expect(isPublicAddress(`::ffff:${hex}`)).toBe(expected);
        expect(isPublicAddress(`64:ff9b::${hex}`)).toBe(expected);
        expect(isPublicAddress(`2002:${hex}::1`)).toBe(expected);
      }),
    );
  });

  it("refuses every address in the private and loopback blocks", () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(octet, octet, octet, (b, c, d) => {
        expect(isPublicAddress(`127.${b}.${c}.${d}`)).toBe(false);
        expect(isPublicAddress(`10.${b}.${c}.${d}`)).toBe(false);
        expect(isPublicAddress(`172.${16 + (b % 16)}.${c}.${d}`)).toBe(false);
        expect(isPublicAddress(`192.168.${c}.${d}`)).toBe(false);
        expect(isPublicAddress(`169.254.${c}.${d}`)).toBe(false);
        expect(isPublicAddress(`100.${64 + (b % 64)}.${c}.${d}`)).toBe(false);
      }),
    );
  });
});
