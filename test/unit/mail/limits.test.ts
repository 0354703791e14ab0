import { describe, expect, it } from "vitest";
import { attachmentLimits } from "../../../shared/config/schema.ts";
import {
  checkAttachments,
  checkMessageSize,
  checkShape,
  type MimeShape,
} from "../../../shared/mail/limits.ts";

const limits = attachmentLimits.parse({
  maxMessageBytes: 1000,
  maxHeaderBytes: 100,
  maxMimeDepth: 3,
  maxMimeParts: 5,
  maxAttachments: 2,
  maxAttachmentBytes: 50,
  maxTotalAttachmentBytes: 80,
});
const shape: MimeShape = { headerBytes: 100, maxPartHeaderBytes: 100, depth: 3, parts: 5 };

describe("checkMessageSize (G7)", () => {
  it("admits exactly the limit and refuses one byte more", () => {
    expect(checkMessageSize(1000, limits)).toEqual({ ok: true });
    expect(checkMessageSize(1001, limits)).toMatchObject({ ok: false, reason: "message-too-large" });
  });
});

describe("checkShape (G7)", () => {
  it("admits a shape exactly at every limit", () => {
    expect(checkShape(shape, limits)).toEqual({ ok: true });
  });

  it.each<[Partial<MimeShape>, string]>([
    [{ headerBytes: 101 }, "headers-too-large"],
    [{ maxPartHeaderBytes: 101 }, "headers-too-large"],
    [{ depth: 4 }, "mime-too-deep"],
    [{ parts: 6 }, "mime-too-many-parts"],
  ])("refuses %j as %s", (over, reason) => {
    const verdict = checkShape({ ...shape, ...over }, limits);
    expect(verdict).toMatchObject({ ok: false, reason });
    if (!verdict.ok) expect(verdict.detail).toMatch(/max/);
  });
});

describe("checkAttachments (G7)", () => {
  it("admits none, and admits exactly the limits", () => {
    expect(checkAttachments([], limits)).toEqual({ ok: true });
    expect(checkAttachments([50, 30], limits)).toEqual({ ok: true });
  });

  it("refuses too many attachments", () => {
    expect(checkAttachments([1, 1, 1], limits)).toMatchObject({ ok: false, reason: "too-many-attachments" });
  });

  it("refuses one attachment over the per-attachment limit, wherever it is", () => {
    expect(checkAttachments([51], limits)).toMatchObject({ ok: false, reason: "attachment-too-large" });
    expect(checkAttachments([1, 51], limits)).toMatchObject({
      ok: false,
      reason: "attachment-too-large",
      detail: expect.stringMatching(/^attachment 2:/),
    });
  });

  it("refuses a total over the limit when each one fits", () => {
    expect(checkAttachments([50, 31], limits)).toMatchObject({ ok: false, reason: "attachments-too-large" });
  });

  it("refuses any attachment when the limit is zero", () => {
    const none = { ...limits, maxAttachments: 0 };
    expect(checkAttachments([], none)).toEqual({ ok: true });
    expect(checkAttachments([0], none)).toMatchObject({ reason: "too-many-attachments" });
  });
});
