// G14, issue 31 item 4: a retraction the approver can see must stop an approval, however it was typed. The scan
// reads NFKC text with look-alike letters folded (UTS #39 skeletons of c, a, n, e, l) and single letters joined
// across single spaces; a "cancel" word anywhere in the fresh text makes APPROVE ambiguous. APPROVE itself stays
// exactly as strict as before. A reply whose text and HTML parts disagree decides nothing.

import { describe, expect, it } from "vitest";
import { renderCard } from "../../../shared/agent/plans/confirm-card.ts";
import { cancelSkeleton } from "../../../shared/mail/cancel-confusables.ts";
import { mentionsCancel } from "../../../shared/mail/cancel-word.ts";
import { CARD_CANCEL_LINES, readConfirmation } from "../../../shared/mail/confirm-reading.ts";
import { readReply } from "../../../shared/mail/confirm-reply.ts";
import { confirmNoticeLines } from "../../../shared/mail/notice.ts";
import { cancelScanShapes } from "../../helpers/hostile-inputs.ts";

const CODE = "K7Q2M9XT4Z";
const APPROVE = `APPROVE ${CODE}`;

describe("the CANCEL scan reads cancel wherever it is written", () => {
  const retractions: readonly (readonly [string, string])[] = [
    ["full-width from a Japanese IME", `ＣＡＮＣＥＬ ${CODE}`],
    ["full-width with an ideographic space", `ＣＡＮＣＥＬ\u3000${CODE}`],
    ["a Cyrillic capital ES for the C", `\u0421ANCEL ${CODE}`],
    ["Cyrillic а, с, е in lower case", "\u0441\u0430n\u0441\u0435l"],
    ["Greek capitals for A, N, E", "C\u0391\u039dC\u0395L"],
    ["a capital I for the l", "CANCEI"],
    ["a digit one for the l", "cance1"],
    ["math bold letters", "\u{1d402}\u{1d400}\u{1d40d}\u{1d402}\u{1d404}\u{1d40b}"],
    ["spaced letters", "C A N C E L"],
    ["spaced letters with a code", `c a n c e l ${CODE}`],
    ["full-width spaced letters", "Ｃ　Ａ　Ｎ　Ｃ　Ｅ　Ｌ"],
    ["a zero-width space inside", "CAN\u200bCEL"],
    ["in a sentence, inflected", "Order should be cancelled instead."],
    ["American inflection", "Canceling this one."],
    ["a noun", "Treat this as a cancellation."],
    ["after a hyphen", "This is non-cancellable, so stop."],
  ];

  it.each(retractions)("%s: APPROVE above it is ambiguous", (_what, line) => {
    expect(mentionsCancel(line)).toBe(true);
    const reading = readConfirmation(`${APPROVE}\n\n${line}\n`);
    expect(reading.kind).toBe("ambiguous");
    expect(reading).toMatchObject({ cancel: true });
  });

  it.each([
    ["a word that only contains the letters", "Scan cell B4 before you refund."],
    ["letters that do not stand alone", "a can cel"],
    ["a thank-you", "Thanks, go ahead."],
    ["a word that only ends in cancel", "uncancel"],
  ])("%s does not read as cancel, and APPROVE applies", (_what, line) => {
    expect(mentionsCancel(line)).toBe(false);
    expect(readConfirmation(`${APPROVE}\n${line}`)).toEqual({ kind: "approve", code: CODE });
  });

  it("APPROVE stays strict: full-width, look-alike or spaced APPROVE on the first line applies nothing", () => {
    for (const first of [
      `ＡＰＰＲＯＶＥ ${CODE}`,
      `\u0410PPROVE ${CODE}`,
      `A P P R O V E ${CODE}`,
      `APPROVE ${CODE} please`,
    ])
      expect(["none", "misplaced"]).toContain(readConfirmation(`${first}\n`).kind);
    expect(readConfirmation(`  \u200f${APPROVE}\u200e  \n`)).toEqual({ kind: "approve", code: CODE });
  });

  it("CANCEL first still cancels, and a look-alike CANCEL first decides nothing (never an approval)", () => {
    expect(readConfirmation(`CANCEL ${CODE}`)).toEqual({ kind: "cancel", code: CODE });
    expect(["none", "misplaced"]).toContain(readConfirmation(`ＣＡＮＣＥＬ ${CODE}`).kind);
  });

  it("reads a 1 MiB reply to its end: a retraction after a megabyte still counts", () => {
    const junk = "\u0421-\u0430.n \u0391\u039d ".repeat(100_000);
    expect(readConfirmation(`${APPROVE}\n${junk}`)).toEqual({ kind: "approve", code: CODE });
    // The shapes npm run bench:bounds times (test/helpers/hostile-inputs.ts).
    for (const [name, text] of cancelScanShapes) expect(readConfirmation(text).kind, name).toBe("ambiguous");
  });

  it("folds every look-alike of the table to its Latin letter, and leaves other letters alone", () => {
    expect(cancelSkeleton("\u0421\u0410\u039d\u0421\u0415\u0406")).toBe("cancel");
    expect(cancelSkeleton("\u{1d402}\u{1d400}\u{1d40d}")).toBe("can");
    expect(cancelSkeleton("Storno")).toBe("storno");
    expect(cancelSkeleton("Привет")).not.toContain("cancel");
  });
});

describe("the card's own CANCEL lines", () => {
  const card = renderCard({
    agent: "shop@agents.example.net",
    code: CODE,
    ops: [{ callId: "c1", tool: "issue_refund", input: { order: "A-1002" }, summary: "Refund order A-1002" }],
    expiresAt: "2026-12-01T12:00:00.000Z",
  });

  it("are exactly the lines the scan leaves to the engine (a card change must change both)", () => {
    const named = card.split("\n").filter((l) => mentionsCancel(l));
    expect(new Set(named)).toEqual(CARD_CANCEL_LINES);
  });

  it("pasted back unquoted under APPROVE (a header block the cutter cannot read) still approve", () => {
    expect(readConfirmation(`${APPROVE}\n\nOd: x\nKomu: y\n\n${card}`)).toEqual({
      kind: "approve",
      code: CODE,
    });
    const quoted = card.replace(/^/gm, "> ");
    expect(readConfirmation(`${APPROVE}\n\n${quoted}`)).toEqual({ kind: "approve", code: CODE });
  });

  it("a confirm notice pasted back unquoted under APPROVE still approves (its CANCEL is the engine's)", () => {
    const notice = confirmNoticeLines().join("\n\n");
    expect(notice.split("\n").some(mentionsCancel)).toBe(true);
    expect(readConfirmation(`${APPROVE}\n\n${notice}`)).toEqual({ kind: "approve", code: CODE });
  });

  it("a card line re-wrapped by a client reads as the approver's (fails safe: ambiguous)", () => {
    const wrapped = "To discard it, make the first line the word CANCEL\nfollowed by the code.";
    expect(readConfirmation(`${APPROVE}\n\n${wrapped}`).kind).toBe("ambiguous");
  });
});

describe("a reply with a text part and an HTML part", () => {
  const html = (first: string) =>
    `<div dir="ltr">${first}</div><div class="gmail_quote"><blockquote class="gmail_quote">code: K7Q2 M9XT 4Z</blockquote></div>`;

  it("applies when both parts say the same decision", () => {
    expect(readReply({ text: `${APPROVE}\n`, html: html(APPROVE) })).toEqual({ kind: "approve", code: CODE });
    expect(readReply({ text: `cancel ${CODE}`, html: html(`CANCEL ${CODE}`) })).toEqual({
      kind: "cancel",
      code: CODE,
    });
  });

  it("is ambiguous when the HTML part (what the approver saw) says something else", () => {
    const reading = readReply({ text: `${APPROVE}\n`, html: html("No, do not refund") });
    expect(reading).toEqual({ kind: "ambiguous", codes: [CODE], approve: true, cancel: false });
    expect(readReply({ text: `${APPROVE}\n`, html: html(`CANCEL ${CODE}`) })).toMatchObject({
      kind: "ambiguous",
      cancel: true,
    });
    expect(
      readReply({ text: `${APPROVE}\n`, html: html(`${APPROVE}<br>Order should be cancelled.`) }),
    ).toMatchObject({ kind: "ambiguous", cancel: true });
  });

  it("is ambiguous when the parts name different codes", () => {
    const reading = readReply({ text: `${APPROVE}\n`, html: html("APPROVE Q8W4N2PR7T") });
    expect(reading).toMatchObject({ kind: "ambiguous" });
    expect(reading.kind === "ambiguous" ? [...reading.codes].sort() : []).toEqual([
      "K7Q2M9XT4Z",
      "Q8W4N2PR7T",
    ]);
  });

  it("a text part that decides nothing decides nothing, whatever the HTML says", () => {
    expect(readReply({ text: "Looks fine\n", html: html(APPROVE) })).toEqual({ kind: "none" });
  });
});
