// What the CLI prints of stored values goes through printable() (issue 31 item 3): a table cell is one line, cut,
// and holds no control, bidi or invisible character; --json keeps the data exact with those characters escaped.

import { describe, expect, it } from "vitest";
import { json, table } from "../../../cli/commands/admin-io.ts";

const HOSTILE = "\u001b]0;owned\u0007\u001b[2J\u009b31m\u202eexe.txt\u200b";
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/;

describe("table", () => {
  it("prints a server's 20,000-character message as one cut line with nothing raw", () => {
    const out = table(
      ["REASON", "MESSAGE"],
      [["mcp-call-failed", `${HOSTILE}\nFAKE ROW  x\n${"y".repeat(20_000)}`]],
    );
    const lines = out.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(out.search(RAW)).toBe(-1);
    expect(lines[1]).toContain("⏎FAKE ROW  x⏎");
    expect(lines[1]?.endsWith("…")).toBe(true);
    expect(lines[1]?.length).toBeLessThan(400);
  });
});

describe("json", () => {
  it("escapes what a terminal would obey and keeps the data exact", () => {
    const value = { detail: HOSTILE, tools: [`a\u2066b\u2069`, "\u00adc"] };
    const out = json(value);
    expect(out.search(RAW)).toBe(-1);
    expect(JSON.parse(out)).toEqual(value);
  });
});
