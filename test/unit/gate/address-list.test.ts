import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_LIST_ELEMENTS, parseAddressList } from "../../../shared/gate/address-list.ts";

const addresses = (value: string) => parseAddressList(value).addresses.map((m) => m.address);

describe("parseAddressList: To and Cc by G2's strict parser", () => {
  it.each([
    ["one plain address", "a@example.com", ["a@example.com"]],
    [
      "display names, quoted commas",
      '"Doe, Jane" <jane@example.com>, Bob <bob@example.com>',
      ["jane@example.com", "bob@example.com"],
    ],
    ["an encoded display name", "=?UTF-8?Q?J=C3=BCrgen?= <j@example.com>", ["j@example.com"]],
    ["a group whose name is no phrase: nothing", "team@x: a@example.com, b@example.com;", []],
    [
      "a group",
      "Team: a@example.com, b@example.com;, c@example.com",
      ["a@example.com", "b@example.com", "c@example.com"],
    ],
    ["an empty group", "undisclosed-recipients:;", []],
    ["empty elements", "a@example.com,, ,b@example.com,", ["a@example.com", "b@example.com"]],
    ["the domain lower-cased", "Jane <Jane@EXAMPLE.com>", ["Jane@example.com"]],
  ])("reads %s", (_name, value, expected) => {
    expect(addresses(value)).toEqual(expected);
  });

  it.each([
    [
      "a Q encoded-word holding an angle address",
      "=?UTF-8?Q?Mallory_=3Cdesk=40agents.example=3E?=",
      "address-syntax",
    ],
    ["an encoded-word local part", "=?utf-8?q?desk?=@agents.example", "address-encoded-word"],
    ["a comment", "a@evil.example (desk@agents.example)", "address-comment"],
    ["a quoted local part", '"desk@agents.example"@evil.example', "address-quoted-local"],
    ["a nested group", "a: b: c@example.com;;", "address-group"],
    ["a route", "<@evil.example:desk@agents.example>", "address-obsolete"],
    ["a domain literal", "desk@[192.0.2.1]", "address-domain-literal"],
    ["an element glued after a group", "g: a@example.com; desk@agents.example", "address-group"],
  ])("refuses %s: no address, and the reason", (_name, value, reason) => {
    const list = parseAddressList(value);
    expect(list.addresses.map((m) => m.address)).not.toContain("desk@agents.example");
    expect(list.refused).toContain(reason);
  });

  it("an unterminated group's members are all refused: where it ends is a guess", () => {
    expect(parseAddressList("staff: a@example.com, b@example.com").addresses).toEqual([]);
  });

  it("an unterminated quoted string leaves no address at all", () => {
    expect(parseAddressList('"a, b@example.com').refused).toEqual(["address-syntax"]);
  });

  it("reads at most MAX_LIST_ELEMENTS elements of a hostile list", () => {
    const list = parseAddressList(Array.from({ length: 5000 }, (_, i) => `u${i}@example.com`).join(","));
    expect(list.addresses.length).toBeLessThanOrEqual(MAX_LIST_ELEMENTS + 1);
  });

  const atom = fc.stringMatching(/^[a-z0-9]{1,10}$/);
  const addr = fc
    .tuple(atom, atom, fc.constantFrom("com", "org", "net"))
    .map(([l, d, t]) => `${l}@${d}.${t}`);
  const display = fc.option(fc.stringMatching(/^[A-Za-z ]{1,12}$/), { nil: undefined });
  const address = fc.tuple(addr, display).map(([a, n]) => ({ a, text: n?.trim() ? `"${n}" <${a}>` : a }));

  it("property: every well-formed address of a generated list is read, in order", () => {
    fc.assert(
      fc.property(fc.array(address, { minLength: 1, maxLength: 8 }), (list) => {
        expect(addresses(list.map((m) => m.text).join(", "))).toEqual(list.map((m) => m.a));
      }),
    );
  });

  it("property: a address only an encoded-word spells is never read, whatever surrounds it", () => {
    fc.assert(
      fc.property(
        fc.array(address, { maxLength: 4 }),
        addr,
        fc.constantFrom("Q", "B"),
        (list, hidden, enc) => {
          const text = `Mallory <${hidden}>`;
          const word =
            enc === "B"
              ? `=?UTF-8?B?${Buffer.from(text).toString("base64")}?=`
              : `=?UTF-8?Q?${text.replace(/[^A-Za-z0-9]/g, (c) => `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)}?=`;
          const got = addresses([...list.map((m) => m.text), word].join(", "));
          expect(got).toEqual(list.map((m) => m.a));
        },
      ),
    );
  });
});
