import { describe, expect, it } from "vitest";
import { headerValueAsUtf8, readHeaderBlock, sameFields } from "../../../shared/gate/header-block.ts";
import { crRunHeader } from "../../helpers/hostile-inputs.ts";

const read = (s: string) => readHeaderBlock(Buffer.from(s, "latin1"));

describe("readHeaderBlock", () => {
  it("reads fields, unfolds values and keeps the raw line", () => {
    expect(read("From: a@b.example\r\nSubject: one\r\n two\r\n\r\nbody\r\nX: not a header\r\n")).toEqual({
      ok: true,
      fields: [
        { name: "from", line: "From: a@b.example", value: "a@b.example" },
        { name: "subject", line: "Subject: one\r\n two", value: "one two" },
      ],
    });
  });

  it("accepts bare LF line ends, WSP before the colon, and a header-only message", () => {
    expect(read("FROM : a@b.example\nX-A:\tv \n\nbody")).toEqual({
      ok: true,
      fields: [
        { name: "from", line: "FROM : a@b.example", value: "a@b.example" },
        { name: "x-a", line: "X-A:\tv ", value: "v" },
      ],
    });
    expect(read("From: a@b.example\r\n")).toMatchObject({ ok: true, fields: [{ name: "from" }] });
  });

  it("ends the header section at the first empty line, also LF CR LF", () => {
    expect(read("A: 1\n\r\nB: 2\r\n")).toMatchObject({ ok: true, fields: [{ name: "a" }] });
    expect(read("A: 1\r\n\r\nbody\n\nB: 2\r\n")).toEqual({
      ok: true,
      fields: [{ name: "a", line: "A: 1", value: "1" }],
    });
  });

  it("has no fields when the message starts with an empty line", () => {
    expect(read("\r\nFrom: a@b.example\r\n")).toEqual({ ok: true, fields: [] });
    expect(read("\nFrom: a@b.example\r\n")).toEqual({ ok: true, fields: [] });
    expect(read("")).toEqual({ ok: true, fields: [] });
  });

  it.each([
    ["a line that is neither field nor fold", "From: a@b.example\r\ngarbage\r\n\r\n"],
    ["a fold before any field", " From: a@b.example\r\n\r\n"],
    ["a fold between name and colon", "From\r\n : a@b.example\r\n\r\n"],
    ["a lone CR", "From: a@b.example\rBcc: x@y.example\r\n\r\n"],
    ["a NUL", "From: a@b.example\0\r\n\r\n"],
    ["an empty field name", ": value\r\n\r\n"],
    ["a field name with a space in it", "Bad Name: value\r\n\r\n"],
  ])("refuses %s", (_name, raw) => {
    expect(read(raw)).toEqual({ ok: false, reason: "header-malformed" });
  });
});

describe("headerValueAsUtf8", () => {
  it("reads UTF-8 bytes and refuses others", () => {
    expect(headerValueAsUtf8(Buffer.from("Zoë", "utf8").toString("latin1"))).toBe("Zoë");
    expect(headerValueAsUtf8("Zo\xeb")).toBeNull();
  });
});

describe("sameFields", () => {
  const ours = [
    { name: "from", line: "From: a@b.example", value: "a@b.example" },
    { name: "to", line: "To: c@d.example", value: "c@d.example" },
  ];
  const theirs = ours.map((f) => ({ key: f.name, line: Buffer.from(f.line, "latin1") }));
  it("holds when the verifier saw the same fields in the same order", () => {
    expect(sameFields(ours, theirs)).toBe(true);
  });
  it.each([
    ["missing", undefined],
    ["fewer", theirs.slice(1)],
    ["reordered", [...theirs].reverse()],
    ["another key", [{ ...theirs[0], key: "sender" }, theirs[1]]],
    ["another line", [{ ...theirs[0], line: Buffer.from("From: x@b.example") }, theirs[1]]],
  ])("fails when the verifier's view is %s", (_name, other) => {
    expect(sameFields(ours, other as typeof theirs | undefined)).toBe(false);
  });
});

describe("readHeaderBlock on hostile sizes", () => {
  it("reads only the header section of a large message, and refuses runs of CRs", () => {
    const big = Buffer.concat([Buffer.from("From: a@b.example\r\n\r\n"), Buffer.alloc(20_000_000, 0x41)]);
    expect(readHeaderBlock(big)).toMatchObject({ ok: true, fields: [{ name: "from" }] });
    // linear: a quadratic scan of this takes minutes and trips the test timeout; `npm run bench:bounds` times it
    expect(readHeaderBlock(crRunHeader())).toEqual({ ok: false, reason: "header-malformed" });
  });

  it("trims the line ends of a message with no body", () => {
    // like mailauth: without an empty line everything is header, trailing CR/LF trimmed
    expect(read("From: a@b.example\r\n\r\r\n")).toMatchObject({
      ok: true,
      fields: [{ value: "a@b.example" }],
    });
    expect(read("From: a@b.example\n\r")).toMatchObject({ ok: true, fields: [{ value: "a@b.example" }] });
  });
});
