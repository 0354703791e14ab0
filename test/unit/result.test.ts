import { describe, expect, it } from "vitest";
import { fail, failureText, ok } from "../../shared/result.ts";

describe("the result shape", () => {
  it("spreads a success's fields beside the tag", () => {
    expect(ok()).toStrictEqual({ ok: true });
    expect(ok({ hop: 2 })).toStrictEqual({ ok: true, hop: 2 });
  });

  it("sets a failure's detail only when given, so stored and traced shapes stay exact", () => {
    expect(fail("hop-limit")).toStrictEqual({ ok: false, reason: "hop-limit" });
    expect(fail("mime-too-deep", "nesting > 5")).toStrictEqual({
      ok: false,
      reason: "mime-too-deep",
      detail: "nesting > 5",
    });
    expect(Object.keys(fail("x", undefined))).toEqual(["ok", "reason"]);
  });

  it("renders one line for a log", () => {
    expect(failureText(fail("notification-not-json"))).toBe("notification-not-json");
    expect(failureText(fail("notification-invalid", "mail.messageId"))).toBe(
      "notification-invalid: mail.messageId",
    );
  });
});
