import { describe, expect, it } from "vitest";
import { parseStructuredHeader, stripComments } from "../../../shared/mail/structured-header.ts";

const parse = (s: string) => {
  const h = parseStructuredHeader(s);
  return { value: h.value, params: Object.fromEntries(h.params) };
};

describe("parseStructuredHeader (mirrors postal-mime 4.0.0)", () => {
  it.each<[string, { value: string; params: Record<string, string> }]>([
    ["Multipart/Mixed; Boundary=abc", { value: "multipart/mixed", params: { boundary: "abc" } }],
    ['multipart/mixed; boundary="a b;c"', { value: "multipart/mixed", params: { boundary: "a b;c" } }],
    ['multipart/mixed; boundary="a\\"b"', { value: "multipart/mixed", params: { boundary: 'a"b' } }],
    [
      "multipart/mixed; boundary=first; boundary=second",
      { value: "multipart/mixed", params: { boundary: "first" } },
    ],
    [
      "multipart/mixed; x=1; flag; boundary=AAA",
      { value: "multipart/mixed", params: { x: "1", flag: "", boundary: "AAA" } },
    ],
    [
      "multipart/mixed (c; boundary=no); boundary=yes",
      { value: "multipart/mixed", params: { boundary: "yes" } },
    ],
    ["multipart/mixed; boundary=a(b)", { value: "multipart/mixed", params: { boundary: "a(b)" } }],
    [
      'multipart/mixed; boundary="AAA" (unterminated',
      { value: "multipart/mixed", params: { boundary: "AAA" } },
    ],
    [
      "multipart/mixed; boundary*0=ab; boundary*1=cd",
      { value: "multipart/mixed", params: { boundary: "abcd" } },
    ],
    [
      "multipart/mixed; boundary*1=cd; boundary*0=ab",
      { value: "multipart/mixed", params: { boundary: "abcd" } },
    ],
    ["multipart/mixed; boundary*=utf-8''a%20b", { value: "multipart/mixed", params: { boundary: "a b" } }],
    ["multipart/mixed; boundary*0=a%20b", { value: "multipart/mixed", params: { boundary: "a%20b" } }],
    [
      "multipart/mixed; boundary=plain; boundary*0=cont",
      { value: "multipart/mixed", params: { boundary: "cont" } },
    ],
    ["", { value: "", params: {} }],
  ])("%j", (input, expected) => {
    expect(parse(input)).toEqual(expected);
  });

  it("strips comments only where whitespace may stand", () => {
    expect(stripComments("text/plain (a (nested) comment); charset=x")).toBe("text/plain ; charset=x");
    expect(stripComments('a; b="(kept)"')).toBe('a; b="(kept)"');
    expect(stripComments("a; name=Invoice(1).pdf")).toBe("a; name=Invoice(1).pdf");
    expect(stripComments("a (open; b=c")).toBe("a (open; b=c");
    expect(stripComments("a (open")).toBe("a ");
  });
});
