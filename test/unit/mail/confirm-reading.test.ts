import { describe, expect, it } from "vitest";
import { cardCodes, formatCode, readConfirmation } from "../../../shared/mail/confirm-reading.ts";

const CODE = "K7Q2M9XT4Z";
const OTHER = "ABCDEFGH23";

describe("readConfirmation (the approver's fresh words only)", () => {
  it.each([
    [`APPROVE ${CODE}`, { kind: "approve", code: CODE }],
    [`  approve k7q2 m9xt 4z  `, { kind: "approve", code: CODE }],
    [`Approve K7Q2-M9XT-4Z`, { kind: "approve", code: CODE }],
    [`Looks right.\n\nAPPROVE ${CODE}\nThanks, Bob`, { kind: "approve", code: CODE }],
    [`APPROVE ${CODE}\r\nAPPROVE K7Q2 M9XT 4Z`, { kind: "approve", code: CODE }],
    [`CANCEL ${CODE}`, { kind: "cancel", code: CODE }],
    [`cancel k7q2m9xt4z`, { kind: "cancel", code: CODE }],
  ])("%j → %j", (text, expected) => {
    expect(readConfirmation(text)).toEqual(expected);
  });

  it.each([
    "No! Do NOT approve this refund, it is fraud.",
    "Cancel please.",
    "Bob, is this legit?",
    `APPROVE ${CODE} please`,
    `I APPROVE ${CODE}`,
    `APPROVE ${CODE.slice(0, 9)}`,
    `APPROVE ${CODE}X`,
    `APPROVE: ${CODE}`,
    `APPROVE0${CODE}`,
    `> APPROVE ${CODE} is what you would write`,
    `code: ${formatCode(CODE)}`,
    `APPROVE O0I1L${CODE.slice(5)}`,
  ])("%j holds no decision", (text) => {
    expect(readConfirmation(text)).toEqual({ kind: "none" });
  });

  it("APPROVE and CANCEL together, or two codes, are ambiguous", () => {
    expect(readConfirmation(`CANCEL ${CODE}\nAPPROVE ${CODE}`)).toEqual({
      kind: "ambiguous",
      codes: [CODE],
      approve: true,
      cancel: true,
    });
    expect(readConfirmation(`APPROVE ${CODE}\nAPPROVE ${OTHER}`)).toMatchObject({
      kind: "ambiguous",
      codes: [CODE, OTHER],
    });
  });

  it("a decision-like line we cannot read beside one we can makes the reply ambiguous, never a pick", () => {
    for (const extra of ["APPROVE Q8W4N2LP7R", "Cancel please.", "approve it, and refund the shipping too"])
      expect(readConfirmation(`APPROVE ${CODE}\n${extra}`)).toMatchObject({
        kind: "ambiguous",
        codes: [CODE],
      });
    expect(readConfirmation(`APPROVE ${CODE}\nApproved, thanks!`)).toEqual({ kind: "approve", code: CODE });
  });

  it("splits lines on every Unicode line break", () => {
    for (const br of ["\v", "\f", "\u0085", "\u2028", "\u2029", "\r"])
      expect(readConfirmation(`Fine.${br}APPROVE ${CODE}`)).toEqual({ kind: "approve", code: CODE });
  });
});

describe("cardCodes (which plan a reply without a decision is about)", () => {
  it("finds the code as the card and its subject show it, quoted or not", () => {
    expect(cardCodes([`Re: Approval needed (1 operation) - code ${formatCode(CODE)}`])).toEqual([CODE]);
    expect(cardCodes([null, `No!\n\n> code: ${formatCode(CODE)}\n> other`])).toEqual([CODE]);
    expect(cardCodes(["the barcode: ABCD"])).toEqual([]);
  });

  it("is bounded", () => {
    const many = Array.from({ length: 50 }, (_, i) => `code: ${String(i).padStart(2, "2")}${OTHER.slice(2)}`);
    expect(cardCodes([many.join("\n")]).length).toBeLessThanOrEqual(5);
  });
});
