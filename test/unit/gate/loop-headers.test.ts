import { describe, expect, it } from "vitest";
import { readLoopHeaders } from "../../../shared/gate/loop-guard.ts";

const mail = (head: string) => Buffer.from(`${head.replaceAll("\n", "\r\n")}\r\n\r\nbody\r\n`);

describe("readLoopHeaders: what the gate reads once, before any agent's loop guard (G5, G6)", () => {
  it("reads the fields, lower-cased, and the inbound hop", () => {
    const read = readLoopHeaders(mail("From: a@x.org\nX-Postern-Recursion: 3"), "a@x.org");
    expect(read).toEqual({
      fields: [
        { key: "from", value: "a@x.org" },
        { key: "x-postern-recursion", value: "3" },
      ],
      automatic: false,
      hop: 3,
    });
  });

  it("counts mail as automatic by what an agent that opted in to nothing would drop, whatever the hop", () => {
    expect(readLoopHeaders(mail("From: a@x.org\nAuto-Submitted: auto-replied"), "a@x.org").automatic).toBe(
      true,
    );
    expect(readLoopHeaders(mail("From: a@x.org\nList-Id: <l.x.org>"), "a@x.org").automatic).toBe(true);
    expect(readLoopHeaders(mail("From: a@x.org"), "").automatic).toBe(true);
    expect(readLoopHeaders(mail("From: a@x.org\nX-Postern-Recursion: 999999"), "a@x.org").automatic).toBe(
      false,
    );
  });

  it("treats a header block it cannot read as automatic mail, with no fields and hop 0", () => {
    const raw = Buffer.from("From: a@x.org\r\nX-Postern-Recursion: 3\r\nSubject: a\rb\r\n\r\nbody\r\n");
    expect(readLoopHeaders(raw, "a@x.org")).toEqual({ fields: [], automatic: true, hop: 0 });
  });
});
