import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { messageIdOf, repliesTo, waitForReplies } from "../../../cli/local/dev-send-reply.ts";

// Finding 11 of issue 31 item 7: the outbox names a reply by the id SES gave it, which `dev send` never printed;
// the reply's In-Reply-To is what ties it to the mail that was sent.
const mail = (from: string, inReplyTo: string | null, id: string) =>
  [
    `From: Help Desk <${from}>`,
    "To: you@sender.postern.test",
    `Message-ID: <${id}@email.amazonses.com>`,
    ...(inReplyTo ? [`In-Reply-To:\r\n <${inReplyTo}>`] : []),
    "Subject: Re: Hello",
    "",
    "Thanks, we are on it.",
  ].join("\r\n");

describe("dev send finds the agents' replies in the outbox", () => {
  it("by the In-Reply-To of each reply, keyed by the agent it is from", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-outbox-"));
    writeFileSync(
      join(dir, "0100-a.eml"),
      mail("helpdesk@demo.postern.test", "sent-1@sender.postern.test", "a"),
    );
    writeFileSync(join(dir, "0100-b.eml"), mail("shop@demo.postern.test", "other@sender.postern.test", "b"));
    writeFileSync(
      join(dir, "0100-c.eml"),
      mail("Refunds@Demo.postern.test", "sent-1@sender.postern.test", "c"),
    );
    writeFileSync(join(dir, "0100-c.json"), "{}");
    const found = repliesTo(dir, "<sent-1@sender.postern.test>");
    expect(Object.fromEntries(found)).toEqual({
      "helpdesk@demo.postern.test": join(dir, "0100-a.eml"),
      "refunds@demo.postern.test": join(dir, "0100-c.eml"),
    });
    expect(repliesTo(join(dir, "absent"), "<x@y>").size).toBe(0);
  });

  it("reads the Message-ID of a raw mail, and stops waiting when the time is up", async () => {
    expect(messageIdOf(Buffer.from(mail("a@b.test", null, "z")))).toBe("<z@email.amazonses.com>");
    expect(messageIdOf(Buffer.from("Subject: none\r\n\r\nbody"))).toBeUndefined();
    const dir = mkdtempSync(join(tmpdir(), "postern-outbox-"));
    const found = await waitForReplies(dir, "<q@r>", ["helpdesk@demo.postern.test"], {
      timeoutMs: 50,
      pollMs: 10,
    });
    expect(found.size).toBe(0);
  });
});
