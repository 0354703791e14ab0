import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type HeaderEntry,
  inboundHop,
  type LoopGuardOptions,
  loopGuard,
} from "../../../shared/gate/loop-guard.ts";

const h = (key: string, value: string): HeaderEntry => ({ key, value });
const base = [h("from", "a@x.org"), h("subject", "hi"), h("content-type", "text/plain")];
const sender = "a@x.org";
const NONE: LoopGuardOptions = { acceptAutoSubmitted: false, acceptListMail: false };
const AUTO: LoopGuardOptions = { acceptAutoSubmitted: true, acceptListMail: false };
const LISTS: LoopGuardOptions = { acceptAutoSubmitted: false, acceptListMail: true };
const BOTH: LoopGuardOptions = { acceptAutoSubmitted: true, acceptListMail: true };

describe("loopGuard: hop limit (G5)", () => {
  it("admits mail with no recursion header as hop 0", () => {
    expect(loopGuard(base, sender, 50, NONE)).toEqual({ ok: true, hop: 0 });
  });

  it("returns the inbound count just under the limit", () => {
    expect(loopGuard([...base, h("x-postern-recursion", "49")], sender, 50, NONE)).toEqual({
      ok: true,
      hop: 49,
    });
    expect(loopGuard([...base, h("x-postern-recursion", " 007 ")], sender, 50, NONE)).toEqual({
      ok: true,
      hop: 7,
    });
  });

  it("drops at and over the limit, even for an agent that opted in to automatic or list mail", () => {
    for (const optIn of [NONE, AUTO, LISTS, BOTH]) {
      expect(loopGuard([...base, h("x-postern-recursion", "50")], sender, 50, optIn)).toEqual({
        ok: false,
        reason: "hop-limit",
      });
      expect(loopGuard([...base, h("x-postern-recursion", "51")], sender, 50, optIn)).toMatchObject({
        reason: "hop-limit",
      });
    }
    expect(loopGuard([h("x-postern-recursion", "1")], sender, 1, NONE)).toMatchObject({
      reason: "hop-limit",
    });
  });

  it.each(["", "abc", "-1", "1.5", "3 (three)", "+4", "0x10", "1e3", "９", "12345678901234567890"])(
    "treats a malformed value %j as at the limit (an attacker must not reset the counter)",
    (value) => {
      expect(inboundHop([h("x-postern-recursion", value)])).toBeNull();
      expect(loopGuard([...base, h("x-postern-recursion", value)], sender, 1000, BOTH)).toEqual({
        ok: false,
        reason: "hop-limit",
      });
    },
  );

  it("counts several recursion fields as their maximum, in any order", () => {
    expect(inboundHop([h("x-postern-recursion", "0"), h("x-postern-recursion", "49")])).toBe(49);
    expect(inboundHop([h("x-postern-recursion", "49"), h("x-postern-recursion", "0")])).toBe(49);
    expect(
      loopGuard([h("x-postern-recursion", "1"), h("x-postern-recursion", "50"), ...base], sender, 50, NONE),
    ).toMatchObject({ reason: "hop-limit" });
    expect(
      loopGuard([h("x-postern-recursion", "2"), h("x-postern-recursion", "bogus")], sender, 50, NONE),
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
        const verdict = loopGuard(headers, sender, 1000, NONE);
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
    expect(loopGuard([...base, h("auto-submitted", value)], sender, 50, NONE)).toEqual({
      ok: false,
      reason: "auto-submitted",
    });
  });

  it.each([["no"], ["No"], [" no (a person wrote this)"], ["no;x=y"]])(
    "admits Auto-Submitted: %j",
    (value) => {
      expect(loopGuard([...base, h("auto-submitted", value)], sender, 50, NONE)).toEqual({
        ok: true,
        hop: 0,
      });
    },
  );

  it("drops when any of several Auto-Submitted fields is not `no`", () => {
    expect(
      loopGuard([...base, h("auto-submitted", "no"), h("auto-submitted", "auto-replied")], sender, 50, NONE),
    ).toMatchObject({ reason: "auto-submitted" });
  });

  it.each([["bulk"], ["junk"], ["list"], ["BULK"], [" list (mailman)"]])("drops Precedence: %j", (value) => {
    expect(loopGuard([...base, h("precedence", value)], sender, 50, NONE)).toEqual({
      ok: false,
      reason: "bulk-precedence",
    });
  });

  it.each([["first-class"], ["normal"], ["bulkier"]])("admits Precedence: %j", (value) => {
    expect(loopGuard([...base, h("precedence", value)], sender, 50, NONE)).toMatchObject({ ok: true });
  });

  it.each([[""], ["<>"], [" <> "]])("drops a null envelope return path %j as a bounce", (mailFrom) => {
    expect(loopGuard(base, mailFrom, 50, NONE)).toEqual({ ok: false, reason: "bounce" });
  });

  it("uses Return-Path only when the envelope is unknown", () => {
    const headers = [h("return-path", "<>"), ...base];
    expect(loopGuard(headers, null, 50, NONE)).toEqual({ ok: false, reason: "bounce" });
    expect(loopGuard(headers, sender, 50, NONE)).toEqual({ ok: true, hop: 0 });
    expect(loopGuard([h("return-path", "<a@x.org>"), ...base], null, 50, NONE)).toEqual({
      ok: true,
      hop: 0,
    });
    expect(loopGuard(base, null, 50, NONE)).toEqual({ ok: true, hop: 0 });
  });

  it("drops multipart/report (RFC 6522) as a bounce", () => {
    const report = [h("content-type", 'Multipart/Report; report-type=delivery-status; boundary="b"')];
    expect(loopGuard(report, sender, 50, NONE)).toEqual({ ok: false, reason: "bounce" });
    expect(loopGuard([h("content-type", "multipart/mixed; boundary=b")], sender, 50, NONE)).toMatchObject({
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
    expect(loopGuard(auto, "<>", 50, AUTO)).toEqual({ ok: true, hop: 3 });
  });
});

describe("loopGuard: de-facto autoresponder markers", () => {
  // A responder labelled only this way resets our hop count (its reply has no X-Postern-Recursion), so without
  // this guard two such parties loop until the daily budget runs out.
  it.each([
    ["precedence", "auto_reply"],
    ["precedence", "AUTO_REPLY"],
    ["precedence", " auto_reply (cPanel)"],
    ["x-autoreply", "yes"],
    ["x-autoreply", "no"],
    ["x-autoreply", ""],
    ["x-autorespond", "vacation"],
    ["x-autorespond", ""],
    ["x-auto-response-suppress", "All"],
    ["x-auto-response-suppress", "AutoReply"],
    ["x-auto-response-suppress", "OOF"],
    ["x-auto-response-suppress", "DR, OOF"],
    ["x-auto-response-suppress", "OOF, DR, RN, NRN, AutoReply"],
    ["x-auto-response-suppress", "None, AutoReply"],
    ["x-auto-response-suppress", ""],
    ["x-auto-response-suppress", "garbage"],
    ["x-auto-response-suppress", "DR;RN"],
  ])("drops %s: %j as auto-reply-marker, even at hop 0", (key, value) => {
    for (const opts of [NONE, LISTS]) {
      expect(loopGuard([...base, h(key, value)], sender, 50, opts)).toEqual({
        ok: false,
        reason: "auto-reply-marker",
      });
    }
  });

  it.each([["None"], ["none"], ["DR"], ["DR, RN"], ["NDR, NRN"], [" RN,NRN "], ["DR, NDR, RN, NRN"]])(
    "admits X-Auto-Response-Suppress: %j (asks only for silence on reports the agent never sends)",
    (value) => {
      expect(loopGuard([...base, h("x-auto-response-suppress", value)], sender, 50, NONE)).toEqual({
        ok: true,
        hop: 0,
      });
    },
  );

  it("reports Auto-Submitted before a marker, and a marker before bulk Precedence", () => {
    const marker = h("x-autoreply", "yes");
    expect(loopGuard([marker, h("auto-submitted", "auto-replied")], sender, 50, NONE)).toMatchObject({
      reason: "auto-submitted",
    });
    expect(loopGuard([h("precedence", "bulk"), marker], sender, 50, NONE)).toMatchObject({
      reason: "auto-reply-marker",
    });
  });

  it("lets an agent that accepts automatic mail receive marked mail, with its hop count", () => {
    const marked = [
      h("precedence", "auto_reply"),
      h("x-autoreply", "yes"),
      h("x-autorespond", "x"),
      h("x-auto-response-suppress", "All"),
      h("x-postern-recursion", "4"),
    ];
    expect(loopGuard(marked, sender, 50, AUTO)).toEqual({ ok: true, hop: 4 });
    expect(loopGuard(marked, sender, 4, AUTO)).toEqual({ ok: false, reason: "hop-limit" });
  });

  it("never admits mail carrying any marker unless the agent accepts automatic mail (property)", () => {
    const marker = fc.constantFrom(
      h("precedence", "auto_reply"),
      h("x-autoreply", "yes"),
      h("x-autorespond", ""),
      h("x-auto-response-suppress", "All"),
    );
    const other = fc.constantFrom(
      h("subject", "hi"),
      h("auto-submitted", "no"),
      h("precedence", "first-class"),
      h("x-auto-response-suppress", "None"),
      h("x-postern-recursion", "2"),
    );
    fc.assert(
      fc.property(fc.array(other, { maxLength: 5 }), marker, fc.nat(), (rest, m, at) => {
        const headers = [...rest];
        headers.splice(at % (rest.length + 1), 0, m);
        for (const opts of [NONE, LISTS]) expect(loopGuard(headers, sender, 50, opts).ok).toBe(false);
        expect(loopGuard(headers, sender, 50, AUTO).ok).toBe(true);
      }),
    );
  });
});

describe("loopGuard: list mail (RFC 2369, RFC 2919, RFC 8058)", () => {
  it.each([
    ["list-id", "Postern users <users.postern.example>"],
    ["list-unsubscribe", "<mailto:leave@lists.example>"],
    ["list-unsubscribe-post", "List-Unsubscribe=One-Click"],
    ["list-post", "<mailto:users@lists.example>"],
    ["list-post", "NO"],
    ["list-help", "<mailto:help@lists.example>"],
    ["list-subscribe", "<mailto:join@lists.example>"],
    ["list-owner", "<mailto:owner@lists.example>"],
    ["list-archive", "<https://lists.example/archive>"],
    ["list-id", ""],
  ])("drops %s: %j as list-mail unless the agent accepts list mail", (key, value) => {
    const headers = [...base, h(key, value)];
    for (const opts of [NONE, AUTO]) {
      expect(loopGuard(headers, sender, 50, opts)).toEqual({ ok: false, reason: "list-mail" });
    }
    for (const opts of [LISTS, BOTH])
      expect(loopGuard(headers, sender, 50, opts)).toEqual({ ok: true, hop: 0 });
  });

  it("does not treat other fields as list fields", () => {
    for (const key of ["x-list-id", "list", "listid", "x-mailing-list-name"])
      expect(loopGuard([...base, h(key, "x")], sender, 50, NONE)).toEqual({ ok: true, hop: 0 });
  });

  it("lets an agent that accepts list mail take `Precedence: list`, but not bulk or junk", () => {
    const list = [...base, h("precedence", "list")];
    expect(loopGuard(list, sender, 50, NONE)).toEqual({ ok: false, reason: "bulk-precedence" });
    expect(loopGuard(list, sender, 50, LISTS)).toEqual({ ok: true, hop: 0 });
    for (const value of ["bulk", "junk"]) {
      expect(loopGuard([...base, h("precedence", value)], sender, 50, LISTS)).toEqual({
        ok: false,
        reason: "bulk-precedence",
      });
      expect(
        loopGuard([...base, h("precedence", "list"), h("precedence", value)], sender, 50, LISTS),
      ).toMatchObject({ reason: "bulk-precedence" });
    }
  });

  it("a typical list post: dropped per what the agent accepts, and never past the hop limit", () => {
    const post = [
      ...base,
      h("list-id", "<users.lists.example>"),
      h("list-post", "<mailto:users@lists.example>"),
      h("list-unsubscribe", "<mailto:leave@lists.example>"),
      h("precedence", "list"),
    ];
    expect(loopGuard(post, sender, 50, NONE)).toEqual({ ok: false, reason: "bulk-precedence" });
    expect(loopGuard(post, sender, 50, AUTO)).toEqual({ ok: false, reason: "list-mail" });
    expect(loopGuard(post, sender, 50, LISTS)).toEqual({ ok: true, hop: 0 });
    const looping = [...post, h("x-postern-recursion", "50")];
    expect(loopGuard(looping, sender, 50, BOTH)).toEqual({ ok: false, reason: "hop-limit" });
  });

  it("accepting list mail does not admit automatic mail", () => {
    expect(loopGuard([...base, h("auto-submitted", "auto-replied")], sender, 50, LISTS)).toMatchObject({
      reason: "auto-submitted",
    });
    expect(loopGuard(base, "<>", 50, LISTS)).toMatchObject({ reason: "bounce" });
  });
});
