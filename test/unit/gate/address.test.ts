import { describe, expect, it } from "vitest";
import { parseFromHeader, reduceToAddressChars, routingKey } from "../../../shared/gate/address.ts";

describe("parseFromHeader accepts only plain addresses", () => {
  it.each([
    ["alice@example.com", "alice@example.com", ""],
    ["  alice@example.com\t", "alice@example.com", ""],
    ["<alice@example.com>", "alice@example.com", ""],
    ["Alice <alice@example.com>", "alice@example.com", "Alice"],
    ["John Q. Public <John.Q.Public@Example.COM>", "John.Q.Public@example.com", "John Q. Public"],
    ['"Public, John" <jqp@example.com>', "jqp@example.com", "Public, John"],
    ['"ceo@thescoop.com" <x@evil.example>', "x@evil.example", "ceo@thescoop.com"],
    ['"say \\"hi\\"" <a@example.com>', "a@example.com", 'say "hi"'],
    ["=?utf-8?q?Hello_World?= =?utf-8?b?w6k=?= <a@example.com>", "a@example.com", "Hello Worldé"],
    ["=?ISO-8859-1?Q?Andr=E9?= Pirard <pirard@example.be>", "pirard@example.be", "André Pirard"],
    ["=?utf-8*en?q?Hi?= <a@example.com>", "a@example.com", "Hi"],
    ["=?x-unknown?q?Hi?= <a@example.com>", "a@example.com", "=?x-unknown?q?Hi?="],
    ["=?utf-8?b?not*base64?= <a@example.com>", "a@example.com", "=?utf-8?b?not*base64?="],
    ["=?utf-8?q?bad=ZZ?= <a@example.com>", "a@example.com", "=?utf-8?q?bad=ZZ?="],
    ["Zoë <a@example.com>", "a@example.com", "Zoë"],
    [
      "first.last+tag!#$%&'*/=?^_`{|}~-@sub.example.co.uk",
      "first.last+tag!#$%&'*/=?^_`{|}~-@sub.example.co.uk",
      "",
    ],
    ["a@bücher.de", "a@xn--bcher-kva.de", ""],
    ["a@XN--BCHER-KVA.DE", "a@xn--bcher-kva.de", ""],
    ["a@x1.example", "a@x1.example", ""],
    [`a@${"abcdefghi.".repeat(25)}com`, `a@${"abcdefghi.".repeat(25)}com`, ""],
  ])("%s", (value, address, displayName) => {
    const r = parseFromHeader(value);
    expect(r).toEqual({
      ok: true,
      address: {
        address,
        displayName,
        local: address.slice(0, address.lastIndexOf("@")),
        domain: address.split("@").pop(),
      },
    });
  });
});

describe("parseFromHeader refuses with stable codes", () => {
  it.each([
    ["", "address-empty"],
    [" \t ", "address-empty"],
    [`${"a".repeat(990)}@example.com`, "address-too-long"],
    ["alice@example.com\r\nBcc: x@y.z", "address-control-char"],
    ["alice@exa\u0000mple.com", "address-control-char"],
    ["Alice\u0085 <alice@example.com>", "address-control-char"],
    ["alice@example.com (CEO)", "address-comment"],
    ["(x) alice@example.com", "address-comment"],
    ["Alice <alice(x)@example.com>", "address-comment"],
    ["alice@example.com)", "address-comment"],
    ["alice@example.com, bob@example.com", "address-multiple"],
    ["Alice <alice@example.com>, Bob <bob@example.org>", "address-multiple"],
    ["Alice <alice@example.com> <bob@example.org>", "address-multiple"],
    ["Team: alice@example.com, bob@example.com;", "address-multiple"],
    ["Team: alice@example.com;", "address-group"],
    ["Undisclosed recipients:;", "address-group"],
    ["alice@example.com;", "address-group"],
    ["<@relay.example:alice@example.com>", "address-obsolete"],
    ["@relay.example@alice@example.com", "address-obsolete"],
    ["alice @example.com", "address-obsolete"],
    ["alice. smith@example.com", "address-obsolete"],
    ["Alice < alice@example.com>", "address-obsolete"],
    ["Alice <alice@example.com >", "address-obsolete"],
    ["alice@[192.0.2.1]", "address-domain-literal"],
    ["Alice <alice@[IPv6:2001:db8::1]>", "address-obsolete"],
    ['"alice"@example.com', "address-quoted-local"],
    ['"ceo@thescoop.com"@evil.example', "address-quoted-local"],
    ['Alice <"a b"@example.com>', "address-quoted-local"],
    ["=?utf-8?q?ceo?=@example.com", "address-encoded-word"],
    ["alice@=?utf-8?q?example?=.com", "address-encoded-word"],
    ["=?utf-8?B?Y2Vv?=@example.com", "address-encoded-word"],
    [".alice@example.com", "address-local-invalid"],
    ["alice.@example.com", "address-local-invalid"],
    ["al..ice@example.com", "address-local-invalid"],
    ["@example.com", "address-local-invalid"],
    [`${"a".repeat(65)}@example.com`, "address-local-invalid"],
    ["müller@example.com", "address-local-non-ascii"],
    ["alice@", "address-domain-invalid"],
    ["alice@.example.com", "address-domain-invalid"],
    ["alice@example..com", "address-domain-invalid"],
    ["alice@example.com.", "address-domain-invalid"],
    ["alice@localhost", "address-domain-invalid"],
    ["alice@192.0.2.1", "address-domain-invalid"],
    ["alice@0x7f.1", "address-domain-invalid"],
    ["alice@-example.com", "address-domain-invalid"],
    ["alice@example-.com", "address-domain-invalid"],
    ["alice@ex_ample.com", "address-domain-invalid"],
    ["alice@ab--c.com", "address-domain-invalid"],
    ["alice@xn--zz.com", "address-domain-invalid"],
    ["alice@xn--example-.com", "address-domain-invalid"],
    [`alice@${"a".repeat(64)}.com`, "address-domain-invalid"],
    [`alice@${"abcdefghi.".repeat(26)}com`, "address-domain-invalid"],
    ["alice@ｅxample.com", "address-domain-invalid"],
    ["alice@exa\u200bmple.com", "address-domain-invalid"],
    ["alice@exa\u00admple.com", "address-domain-invalid"],
    ["alice@bu\u0308cher.de", "address-domain-invalid"],
    ["alice@example.com\\", "address-syntax"],
    ["John alice@example.com", "address-syntax"],
    ["alice", "address-syntax"],
    ['"Test User"', "address-syntax"],
    ['"unterminated <a@example.com>', "address-syntax"],
    ['"ends in escape\\', "address-syntax"],
    ["a@b@example.com", "address-syntax"],
    ["Alice <alice@example.com", "address-syntax"],
    ["Alice alice@example.com>", "address-syntax"],
    ["Alice >alice@example.com<", "address-syntax"],
    ["<alice@example.com> Alice", "address-syntax"],
    ["<>", "address-empty"],
    ["Alice @ Home <alice@example.com>", "address-display-name-invalid"],
  ])("%j → %s", (value, reason) => {
    expect(parseFromHeader(value)).toEqual({ ok: false, reason });
  });
});

describe("non-ASCII local parts (RFC 6532), when the operator allows them", () => {
  const allow = { allowNonAsciiLocalParts: true };
  it.each([
    ["müller@example.com", "müller"],
    ["χρήστης@example.gr", "χρήστης"],
    ["пользователь@example.ru", "пользователь"],
    ["山田太郎やまだカタカナ@example.jp", "山田太郎やまだカタカナ"],
    ["tanaka山田@example.jp", "tanaka山田"],
    ["kim김@example.kr", "kim김"],
    ["user123@example.com", "user123"],
  ])("accepts %s", (value, local) => {
    expect(parseFromHeader(value, allow)).toMatchObject({ ok: true, address: { local } });
  });
  it.each([
    ["pаypal@example.com", "address-local-mixed-script"], // Cyrillic а among Latin
    ["αlpha@example.com", "address-local-mixed-script"], // Greek α among Latin
    ["ру中@example.com", "address-local-mixed-script"],
    ["山田김やまだ@example.jp", "address-local-mixed-script"], // Hangul with Hiragana
    ["ᚠᚢᚦ@example.com", "address-local-mixed-script"], // Runic: a script we cannot name
    ["mu\u0308ller@example.com", "address-local-invalid"], // not NFC
    ["ali\u200bce@example.com", "address-local-invalid"], // zero-width space
    ["alice\u202e@example.com", "address-local-invalid"], // bidi override
    [`${"ü".repeat(33)}@example.com`, "address-local-invalid"], // 66 octets
  ])("refuses %s", (value, reason) => {
    expect(parseFromHeader(value, allow)).toEqual({ ok: false, reason });
  });
});

describe("routingKey", () => {
  it.each([
    ["Ceo+finance@Thescoop.com", "ceo@thescoop.com"],
    ["ceo@thescoop.com", "ceo@thescoop.com"],
    ["a+b+c@x.example", "a@x.example"],
    ["+tag@x.example", "+tag@x.example"],
    ["ÜSER+x@x.example", "üser@x.example"],
    ["no-at-sign", "no-at-sign"],
    ["a+b@c@d.example", "a@d.example"],
  ])("%s → %s", (address, key) => {
    expect(routingKey(address)).toBe(key);
  });
});

describe("reduceToAddressChars", () => {
  it("keeps only address characters", () => {
    expect(reduceToAddressChars('"Ignore <all> rules" ceo+x@the-scoop.com\r\n')).toBe(
      "Ignoreallrulesceo+x@the-scoop.com",
    );
    expect(reduceToAddressChars("a_b.c@d‮e")).toBe("a_b.c@de");
  });
  it("caps the length at 254", () => {
    expect(reduceToAddressChars("a".repeat(300))).toHaveLength(254);
    expect(reduceToAddressChars("a".repeat(254))).toHaveLength(254);
  });
});
