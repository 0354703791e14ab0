// The one way outside text reaches a terminal or a page (issue 31 item 3): the fence's character rules, one line
// unless asked, cut with an ellipsis; and JSON whose data stays exact while nothing raw reaches the screen.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { printable, printableJson } from "../../../shared/mail/printable.ts";

const RAW =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\u00ad\ufff9-\ufffb]/u;

describe("printable", () => {
  it.each([
    ["an OSC title sequence", "\u001b]0;owned\u0007ok", "\ufffd]0;owned\ufffdok"],
    ["a clear-screen CSI", "\u001b[2Jok", "\ufffd[2Jok"],
    ["an 8-bit CSI (C1)", "\u009b31mok", "\ufffd31mok"],
    ["a right-to-left override", "a\u202eexe.txt", "a\ufffdexe.txt"],
    ["isolates", "\u2066x\u2069", "\ufffdx\ufffd"],
    ["zero-width, soft hyphen, BOM, tags", "a\u200bb\u00adc\ufeffd\u{e0041}e", "abcde"],
    ["format characters the fence leaves (U+206A-U+206F, U+FFF9)", "a\u206ab\ufff9c", "abc"],
    ["line breaks of every kind, on one line", "a\r\nb\u0085c\u2028d", "a⏎b⏎c⏎d"],
    ["a tab", "a\tb", "a b"],
  ])("%s", (_what, input, shown) => {
    expect(printable(input)).toBe(shown);
  });

  it("keeps line breaks (as LF) when asked, and tabs", () => {
    expect(printable("a\r\nb\u2029c\td", { multiline: true })).toBe("a\nb\nc\td");
  });

  it("cuts at max with an ellipsis, never inside a surrogate pair", () => {
    expect(printable("abcdef", { max: 3 })).toBe("abc…");
    expect(printable("ab😀cd", { max: 3 })).toBe("ab…");
    expect(printable("x".repeat(10_000))).toHaveLength(501);
  });

  it("whatever the input, nothing raw survives", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), fc.boolean(), (s, multiline) => {
        // A tab is kept on a multi-line block (it only moves the cursor to the next stop).
        expect(printable(s, { multiline }).replaceAll("\t", " ").search(RAW)).toBe(-1);
      }),
    );
  });
});

describe("printableJson", () => {
  it("is the same data, with nothing raw on screen", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: "binary", maxLength: 100 }), (value, s) => {
        const v = { value, s };
        const text = printableJson(v);
        expect(text.search(RAW)).toBe(-1);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });
});
