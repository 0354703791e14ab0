import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type HeaderField, inboundHop, loopGuard } from "../../../shared/gate/loop-guard.ts";

const h = (key: string, value: string): HeaderField => ({ key, value });
const base = [h("from", "a@x.org"), h("subject", "hi"), h("content-type", "text/plain")];
const sender = "a@x.org";

describe("loopGuard: hop limit (G5)", () => {
  it("admits mail with no recursion header as hop 0", () => {
    expect(loopGuard(base, sender, 50, false)).toEqual({ ok: true, hop: 0 });
  });

  it("returns the inbound count just under the limit", () => {
    expect(loopGuard([...base, h("x-postern-recursion", "49")], sender, 50, false)).toEqual({
      ok: true,
      hop: 49,
    });
    expect(loopGuard([...base, h("x-postern-recursion", " 007 ")], sender, 50, false)).toEqual({
      ok: true,
      hop: 7,
    });
  });

  it("drops at and over the limit, even for an agent that opted in to automatic mail", () => {
    for (const optIn of [false, true]) {
      expect(loopGuard([...base, h("x-postern-recursion", "50")], sender, 50, optIn)).toEqual({
        ok: false,
        reason: "hop-limit",
      });
      expect(loopGuard([...base, h("x-postern-recursion", "51")], sender, 50, optIn)).toMatchObject({
        reason: "hop-limit",
      });
    }
    expect(loopGuard([h("x-postern-recursion", "1")], sender, 1, false)).toMatchObject({
      reason: "hop-limit",
    });
  });

  it.each(["", "abc", "-1", "1.5", "3 (three)", "+4", "0x10", "1e3", "９", "12345678901234567890"])(
    "treats a malformed value %j as at the limit (an attacker must not reset the counter)",
    (value) => {
      expect(inboundHop([h("x-postern-recursion", value)])).toBeNull();
      expect(loopGuard([...base, h("x-postern-recursion", value)], sender, 1000, true)).toEqual({
        ok: false,
        reason: "hop-limit",
      });
    },
  );

  it("counts several recursion fields as their maximum, in any order", () => {
    expect(inboundHop([h("x-postern-recursion", "0"), h("x-postern-recursion", "49")])).toBe(49);
    expect(inboundHop([h("x-postern-recursion", "49"), h("x-postern-recursion", "0")])).toBe(49);
    expect(
      loopGuard([h("x-postern-recursion", "1"), h("x-postern-recursion", "50"), ...base], sender, 50, false),
    ).toMatchObject({ reason: "hop-limit" });
    expect(
      loopGuard([h("x-postern-recursion", "2"), h("x-postern-recursion", "bogus")], sender, 50, false),
    ).toEqual({
      ok: false,
      reason: "hop-limit",
    });
  });

  it("never reports a hop below any valid recursion field (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 999_999 }), { minLength: 1, maxLength: 5 }), (hops) => {
        const headers = hops.map((n) => h("x-postern-recursion", String(n)));
        expect(inboundHop(headers)).toBe(Math.max(...hops));
        const verdict = loopGuard(headers, sender, 1000, false);
        if (verdict.ok) expect(verdict.hop).toBe(Math.max(...hops));
        else expect(Math.max(...hops)).toBeGreaterThanOrEqual(1000);
      }),
    );
  });
});

describe("loopGuard: automatic mail (RFC 3834)", () => {
  it.each([
    ["auto-replied"],
    ["auto-generated"],
    ["Auto-Replied (vacation)"],
    ["auto-notified; owner-email=x@y.org"],
    ["garbage"],
    [""],
  ])("drops Auto-Submitted: %j", (value) => {
    expect(loopGuard([...base, h("auto-submitted", value)], sender, 50, false)).toEqual({
      ok: false,
      reason: "auto-submitted",
    });
  });

  it.each([["no"], ["No"], [" no (a person wrote this)"], ["no;x=y"]])(
    "admits Auto-Submitted: %j",
    (value) => {
      expect(loopGuard([...base, h("auto-submitted", value)], sender, 50, false)).toEqual({
        ok: true,
        hop: 0,
      });
    },
  );

  it("drops when any of several Auto-Submitted fields is not `no`", () => {
    expect(
      loopGuard([...base, h("auto-submitted", "no"), h("auto-submitted", "auto-replied")], sender, 50, false),
    ).toMatchObject({ reason: "auto-submitted" });
  });

  it.each([["bulk"], ["junk"], ["list"], ["BULK"], [" list (mailman)"]])("drops Precedence: %j", (value) => {
    expect(loopGuard([...base, h("precedence", value)], sender, 50, false)).toEqual({
      ok: false,
      reason: "bulk-precedence",
    });
  });

  it.each([["first-class"], ["normal"], ["bulkier"]])("admits Precedence: %j", (value) => {
    expect(loopGuard([...base, h("precedence", value)], sender, 50, false)).toMatchObject({ ok: true });
  });

  it.each([[""], ["<>"], [" <> "]])("drops a null envelope return path %j as a bounce", (mailFrom) => {
    expect(loopGuard(base, mailFrom, 50, false)).toEqual({ ok: false, reason: "bounce" });
  });

  it("uses Return-Path only when the envelope is unknown", () => {
    const headers = [h("return-path", "<>"), ...base];
    expect(loopGuard(headers, null, 50, false)).toEqual({ ok: false, reason: "bounce" });
    expect(loopGuard(headers, sender, 50, false)).toEqual({ ok: true, hop: 0 });
    expect(loopGuard([h("return-path", "<a@x.org>"), ...base], null, 50, false)).toEqual({
      ok: true,
      hop: 0,
    });
    expect(loopGuard(base, null, 50, false)).toEqual({ ok: true, hop: 0 });
  });

  it("drops multipart/report (RFC 6522) as a bounce", () => {
    const report = [h("content-type", 'Multipart/Report; report-type=delivery-status; boundary="b"')];
    expect(loopGuard(report, sender, 50, false)).toEqual({ ok: false, reason: "bounce" });
    expect(loopGuard([h("content-type", "multipart/mixed; boundary=b")], sender, 50, false)).toMatchObject({
      ok: true,
    });
  });

  it("lets an agent that opted in receive automatic mail, with its hop count", () => {
    const auto = [
      h("auto-submitted", "auto-replied"),
      h("precedence", "bulk"),
      h("content-type", "multipart/report; boundary=b"),
      h("x-postern-recursion", "3"),
    ];
    expect(loopGuard(auto, "<>", 50, true)).toEqual({ ok: true, hop: 3 });
  });
});
