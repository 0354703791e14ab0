import { describe, expect, it } from "vitest";
import { rewriteAsSes, rfc5322Date } from "../../../cli/local/ses-header-rewrite.ts";

const NOW = new Date("2026-11-30T20:05:09Z");

describe("rewriteAsSes (what SES does to the headers of a mail it sends)", () => {
  it("replaces our Message-ID and Date (folded ones too) with SES's, keeping every other byte", () => {
    const raw = Buffer.from(
      "From: a@agents.example.com\r\nMessage-ID:\r\n <ours@agents.example.com>\r\nDate: Sun, 1 Jan 2026 00:00:00 +0000\r\nSubject: Hi\r\n\r\nMessage-ID: body text stays\r\n",
    );
    const out = rewriteAsSes(raw, "0100abc", "eu-west-1", NOW).toString("latin1");
    expect(out).toBe(
      "Message-ID: <0100abc@eu-west-1.amazonses.com>\r\nDate: Mon, 30 Nov 2026 20:05:09 +0000\r\nFrom: a@agents.example.com\r\nSubject: Hi\r\n\r\nMessage-ID: body text stays\r\n",
    );
  });

  it("uses email.amazonses.com in us-east-1, and adds the headers to a mail that had none (LF line ends kept)", () => {
    const out = rewriteAsSes(Buffer.from("Subject: x\n\nbody\n"), "id1", "us-east-1", NOW).toString("latin1");
    expect(out).toBe(
      "Message-ID: <id1@email.amazonses.com>\nDate: Mon, 30 Nov 2026 20:05:09 +0000\nSubject: x\n\nbody\n",
    );
  });

  it("writes RFC 5322 dates", () => {
    expect(rfc5322Date(new Date("2026-03-05T04:03:02Z"))).toBe("Thu, 5 Mar 2026 04:03:02 +0000");
  });
});
