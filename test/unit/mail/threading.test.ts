import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_REFERENCES,
  messageIdsIn,
  NO_SUBJECT,
  replySubject,
  replyThreading,
} from "../../../shared/mail/threading.ts";

describe("replySubject", () => {
  it.each([
    ["Hello", "Re: Hello"],
    ["Re: Hello", "Re: Hello"],
    ["RE: Hello", "Re: Hello"],
    ["re: Hello", "Re: Hello"],
    ["Re: Re: Re: Hello", "Re: Hello"],
    ["Re[2]: Hello", "Re: Hello"],
    ["Re(3): Hello", "Re: Hello"],
    ["AW: RE: Budget 2027", "Re: Budget 2027"],
    ["SV: Möte", "Re: Möte"],
    ["VS: Kokous", "Re: Kokous"],
    ["Antw: Vraag", "Re: Vraag"],
    ["Odp: Pytanie", "Re: Pytanie"],
    ["Re : Question", "Re: Question"],
    ["Re\uff1a 问题", "Re: 问题"],
    ["Fwd: Report", "Re: Fwd: Report"],
    ["Re: Fwd: Report", "Re: Fwd: Report"],
    ["Regarding: the plan", "Re: Regarding: the plan"],
    ["Reply needed", "Re: Reply needed"],
    ["R: Italian Outlook", "Re: R: Italian Outlook"],
    [null, `Re: ${NO_SUBJECT}`],
    ["", `Re: ${NO_SUBJECT}`],
    ["   ", `Re: ${NO_SUBJECT}`],
    ["Re:", `Re: ${NO_SUBJECT}`],
  ])("%j → %j", (input, expected) => {
    expect(replySubject(input)).toBe(expected);
  });

  it("removes line breaks and controls a decoded subject may carry (header injection)", () => {
    const s = replySubject("Hi\r\nBcc: victim@example.com\u2028X: y\u0000");
    expect(s).toBe("Re: Hi Bcc: victim@example.com X: y");
    for (const c of ["\r", "\n", "\u0000", "\u2028"]) expect(s).not.toContain(c);
  });

  it("caps the length", () => {
    expect(replySubject("x".repeat(5000)).length).toBeLessThanOrEqual(900);
  });

  it("is idempotent, starts with exactly one Re: and holds no control characters", () => {
    fc.assert(
      fc.property(fc.option(fc.string({ unit: "grapheme-composite", maxLength: 200 })), (raw) => {
        const once = replySubject(raw);
        expect(replySubject(once)).toBe(once);
        expect(once.startsWith("Re: ")).toBe(true);
        expect(once.slice(4)).not.toMatch(/^\s*re\s*:/i);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the property is about control characters
        expect(once).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      }),
    );
  });
});

describe("replyThreading (RFC 5322 §3.6.4)", () => {
  it("In-Reply-To is the parent; References is the parent's References plus the parent", () => {
    expect(
      replyThreading({ headerMessageId: "<p@x>", references: ["<a@x>", "<b@x>"], inReplyTo: "<b@x>" }),
    ).toEqual({ inReplyTo: "<p@x>", references: ["<a@x>", "<b@x>", "<p@x>"] });
  });

  it("falls back to the parent's In-Reply-To when it has no References", () => {
    expect(replyThreading({ headerMessageId: "<p@x>", references: [], inReplyTo: "<b@x>" })).toEqual({
      inReplyTo: "<p@x>",
      references: ["<b@x>", "<p@x>"],
    });
  });

  it("does not use an In-Reply-To that holds several ids (RFC 5322: ambiguous)", () => {
    expect(replyThreading({ headerMessageId: "<p@x>", references: [], inReplyTo: "<a@x> <b@x>" })).toEqual({
      inReplyTo: "<p@x>",
      references: ["<p@x>"],
    });
  });

  it("without a parent Message-ID there is no In-Reply-To, and References stays the parent's", () => {
    expect(replyThreading({ headerMessageId: null, references: ["<a@x>"], inReplyTo: null })).toEqual({
      inReplyTo: null,
      references: ["<a@x>"],
    });
  });

  it("drops malformed and hostile ids rather than echoing them into our headers", () => {
    const r = replyThreading({
      headerMessageId: "<p@x>\r\nBcc: v@example.com",
      references: ["<a@x>", "<no-at-sign>", "<sp ace@x>", "<a@x>\r\nX-Evil: 1", `<${"y".repeat(300)}@x>`],
      inReplyTo: null,
    });
    // The hostile parent id is refused outright; `<a@x>` survives from the well-formed entries.
    expect(r.inReplyTo).toBeNull();
    expect(r.references).toEqual(["<a@x>"]);
  });

  it("de-duplicates and keeps the parent last", () => {
    expect(
      replyThreading({
        headerMessageId: "<p@x>",
        references: ["<a@x>", "<p@x>", "<a@x>", "<b@x>"],
        inReplyTo: null,
      }).references,
    ).toEqual(["<a@x>", "<b@x>", "<p@x>"]);
  });

  it(`caps References at ${MAX_REFERENCES}, keeping the root and the most recent ids`, () => {
    const refs = Array.from({ length: 60 }, (_, i) => `<m${i}@x>`);
    const r = replyThreading({ headerMessageId: "<p@x>", references: refs, inReplyTo: null });
    expect(r.references).toHaveLength(MAX_REFERENCES);
    expect(r.references[0]).toBe("<m0@x>");
    expect(r.references.at(-1)).toBe("<p@x>");
    expect(r.references.at(-2)).toBe("<m59@x>");
  });

  it("reads ids out of whole header values", () => {
    expect(messageIdsIn("<a@x>\r\n <b@y>  junk <c d@z>")).toEqual(["<a@x>", "<b@y>"]);
  });
});
