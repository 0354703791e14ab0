import { describe, expect, it } from "vitest";
import { cardCodes, formatCode, readConfirmation } from "../../../shared/mail/confirm-reading.ts";
import { LONG_LINE_CODE, longConfirmationLine } from "../../helpers/hostile-inputs.ts";

const CODE = "K7Q2M9XT4Z";
const OTHER = "ABCDEFGH23";

describe("readConfirmation (the first line of the approver's fresh words)", () => {
  it.each([
    [`APPROVE ${CODE}`, { kind: "approve", code: CODE }],
    [`  approve k7q2 m9xt 4z  `, { kind: "approve", code: CODE }],
    [`Approve K7Q2-M9XT-4Z`, { kind: "approve", code: CODE }],
    [`\n\n  \nAPPROVE ${CODE}\nThanks, Bob`, { kind: "approve", code: CODE }],
    [`APPROVE ${CODE}\r\nAPPROVE K7Q2 M9XT 4Z`, { kind: "approve", code: CODE }],
    [`APPROVE ${CODE}\nApproved, thanks!`, { kind: "approve", code: CODE }],
    // Hebrew and Arabic clients start lines with RLM; a BOM or zero-width space is as invisible.
    [`\u200fAPPROVE ${CODE}\u200f`, { kind: "approve", code: CODE }],
    [`\ufeff\u200bAPPROVE ${CODE}`, { kind: "approve", code: CODE }],
    [`CANCEL ${CODE}`, { kind: "cancel", code: CODE }],
    [`cancel k7q2m9xt4z`, { kind: "cancel", code: CODE }],
    // CANCEL first cancels, whatever quoted approval sits below it.
    [`CANCEL ${CODE}\nAPPROVE ${CODE}`, { kind: "cancel", code: CODE }],
    [`CANCEL ${CODE}\n\nOd: Jim\nAPPROVE ${CODE}\nApprove it, Dana`, { kind: "cancel", code: CODE }],
  ])("%j → %j", (text, expected) => {
    expect(readConfirmation(text)).toEqual(expected);
  });

  it.each([
    "No! Do NOT approve this refund, it is fraud.",
    "Cancel please.",
    "Bob, is this legit?",
    `APPROVE ${CODE} please`,
    `I APPROVE ${CODE}`,
    `not APPROVE ${CODE}`,
    `"APPROVE ${CODE}"`,
    `| APPROVE ${CODE} |`,
    `From:Jim/ACME\tAPPROVE ${CODE}`,
    `APPROVE ${CODE.slice(0, 9)}`,
    `APPROVE ${CODE}X`,
    `APPROVE: ${CODE}`,
    `APPROVE0${CODE}`,
    `> APPROVE ${CODE} is what you would write`,
    `> APPROVE ${CODE}`,
    `code: ${formatCode(CODE)}`,
    `APPROVE O0I1L${CODE.slice(5)}`,
  ])("%j holds no decision", (text) => {
    expect(readConfirmation(text)).toEqual({ kind: "none" });
  });

  it.each([
    ["a refusal in Czech above a quoted approval", `Ne, neschvaluji.\n\nAPPROVE ${CODE}`],
    ["a refusal in Greek", `Όχι, δεν εγκρίνω.\nAPPROVE ${CODE}`],
    ["a refusal in Hebrew", `\u200fלא, אני לא מאשר.\nAPPROVE ${CODE}`],
    ["a refusal in Thai", `ไม่อนุมัติครับ\n\nAPPROVE ${CODE}`],
    ["a greeting", `Hi team,\n\nAPPROVE ${CODE}`],
    [
      "a bottom-posted approval read with its quote",
      `On Mon, Bob wrote:\n> code: ${formatCode(CODE)}\nAPPROVE ${CODE}`,
    ],
    ["a Notes header table run together", `Jim/ACMETo:Dana/ACME@ACME\nAPPROVE ${CODE}`],
    ["a sentence first", `Looks fine.\n\nAPPROVE ${CODE}\n\n> APPROVE ${CODE}`],
  ])("confirmation lines below other text are misplaced, never a decision: %s", (_name, text) => {
    expect(readConfirmation(text)).toEqual({ kind: "misplaced", codes: [CODE] });
  });

  it("APPROVE first with a CANCEL line anywhere, or another code, is ambiguous", () => {
    for (const below of [`CANCEL ${CODE}`, `No wait, cancel ${formatCode(CODE)}!`, `| CANCEL ${CODE} |`])
      expect(readConfirmation(`APPROVE ${CODE}\n\n${below}`)).toMatchObject({
        kind: "ambiguous",
        codes: [CODE],
        cancel: true,
      });
    expect(readConfirmation(`APPROVE ${CODE}\nAPPROVE ${OTHER}`)).toMatchObject({
      kind: "ambiguous",
      codes: [CODE, OTHER],
    });
    expect(readConfirmation(`CANCEL ${CODE}\nAPPROVE ${OTHER}`)).toMatchObject({
      kind: "ambiguous",
      codes: [CODE, OTHER],
    });
  });

  it("a decision-like line we cannot read below an APPROVE makes the reply ambiguous, never a pick", () => {
    for (const extra of ["APPROVE Q8W4N2LP7R", "Cancel please.", "approve it, and refund the shipping too"])
      expect(readConfirmation(`APPROVE ${CODE}\n${extra}`)).toMatchObject({
        kind: "ambiguous",
        codes: [CODE],
      });
  });

  it("splits lines on every Unicode line break", () => {
    for (const br of ["\v", "\f", "\u0085", "\u2028", "\u2029", "\r"]) {
      expect(readConfirmation(`APPROVE ${CODE}${br}Fine.`)).toEqual({ kind: "approve", code: CODE });
      expect(readConfirmation(`Fine.${br}APPROVE ${CODE}`)).toEqual({ kind: "misplaced", codes: [CODE] });
      expect(readConfirmation(`APPROVE ${CODE}${br}CANCEL ${CODE}`).kind).toBe("ambiguous");
    }
  });

  it("reads a long line of cancels (linear: `npm run bench:bounds` times it)", () => {
    expect(LONG_LINE_CODE).toBe(CODE);
    expect(readConfirmation(longConfirmationLine)).toEqual({
      kind: "ambiguous",
      codes: [CODE],
      approve: true,
      cancel: true,
    });
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
