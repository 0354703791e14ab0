import { describe, expect, it } from "vitest";
import { composeMime } from "../../../shared/mail/compose.ts";
import { AGENT, baseInput, composeAndParse, DATE, LIMITS } from "../outbound/mail-helpers.ts";

describe("composeMime", () => {
  it("new mail: From is the agent, fresh hop 1, auto-generated, our Message-ID and Date, no threading", async () => {
    const { email, header } = await composeAndParse(baseInput());
    expect(header("from")).toHaveLength(1);
    expect(email.from?.address).toBe(AGENT.address);
    expect(email.from?.name).toBe("Helpdesk");
    expect(email.subject).toBe("Hello");
    expect(header("x-postern-recursion")).toEqual(["1"]);
    expect(header("auto-submitted")).toEqual(["auto-generated"]);
    expect(email.messageId).toBe("<m1.postern@agents.example.com>");
    expect(new Date(email.date ?? "").toISOString()).toBe(DATE.toISOString());
    expect(header("in-reply-to")).toEqual([]);
    expect(header("references")).toEqual([]);
  });

  it("reply: Subject and threading from the parent, hop = parent + 1, auto-replied", async () => {
    const { r, email, header } = await composeAndParse(
      baseInput({
        mode: {
          kind: "reply",
          parent: {
            subject: "RE: Q3",
            headerMessageId: "<p@x.com>",
            references: ["<a@x.com>"],
            inReplyTo: null,
            hop: 4,
          },
        },
      }),
    );
    expect(email.subject).toBe("Re: Q3");
    expect(email.inReplyTo).toBe("<p@x.com>");
    expect(email.references).toBe("<a@x.com> <p@x.com>");
    expect(header("x-postern-recursion")).toEqual(["5"]);
    expect(header("auto-submitted")).toEqual(["auto-replied"]);
    expect(r.hop).toBe(5);
  });

  it("operator mail carries neither a hop count nor Auto-Submitted (G5)", async () => {
    const { header, r } = await composeAndParse(baseInput({ origin: "operator" }));
    expect(header("x-postern-recursion")).toEqual([]);
    expect(header("auto-submitted")).toEqual([]);
    expect(r.hop).toBeNull();
  });

  it("a notice is auto-generated and counts the refused message's hop", async () => {
    const { header } = await composeAndParse(
      baseInput({ origin: "notice", mode: { kind: "new", subject: "Not delivered", respondsToHop: 7 } }),
    );
    expect(header("x-postern-recursion")).toEqual(["8"]);
    expect(header("auto-submitted")).toEqual(["auto-generated"]);
  });

  it("Bcc never reaches the headers", async () => {
    const { header, text } = await composeAndParse(
      baseInput({
        recipients: { to: ["a@example.com"], cc: ["c@example.com"], bcc: ["secret@example.com"] },
      }),
    );
    expect(header("cc")).toEqual(["c@example.com"]);
    expect(text).not.toContain("secret@example.com");
  });

  it("body is UTF-8 text/plain and round-trips; a model-written header line stays in the body", async () => {
    const body = "Grüße ✓\r\nFrom: ceo@bank.example\n\nBcc: x@example.com\n.\n";
    const { email, header } = await composeAndParse(baseInput({ body }));
    expect(email.text?.replace(/\r\n/g, "\n")).toBe(body.replace(/\r\n/g, "\n"));
    expect(email.from?.address).toBe(AGENT.address);
    expect(header("bcc")).toEqual([]);
  });

  it("attachments go out with a sanitised name and a safe type", async () => {
    const { email } = await composeAndParse(
      baseInput({
        attachments: [
          {
            filename: "report\r\nX-Evil: 1.csv",
            contentType: "text/csv",
            bytes: new TextEncoder().encode("a,b\n"),
          },
          { filename: null, contentType: "text/html\r\nX: y", bytes: new Uint8Array([1, 2]) },
        ],
      }),
    );
    expect(email.attachments.map((a) => [a.filename, a.mimeType])).toEqual([
      ["report X-Evil: 1.csv", "text/csv"],
      ["attachment", "application/octet-stream"],
    ]);
  });

  it("enforces the attachment limits", async () => {
    const one = { filename: "a.bin", contentType: "application/octet-stream", bytes: new Uint8Array(10) };
    const tight = {
      ...LIMITS,
      maxAttachments: 1,
      maxAttachmentBytes: 8,
      maxTotalAttachmentBytes: 15,
      maxMessageBytes: 2000,
    };
    expect(await composeMime(baseInput({ limits: tight, attachments: [one, one] }))).toEqual({
      ok: false,
      reason: "too-many-attachments",
    });
    expect(await composeMime(baseInput({ limits: tight, attachments: [one] }))).toEqual({
      ok: false,
      reason: "attachment-too-large",
    });
    const small = { ...one, bytes: new Uint8Array(8) };
    expect(
      await composeMime(baseInput({ limits: { ...tight, maxAttachments: 2 }, attachments: [small, small] })),
    ).toEqual({ ok: false, reason: "attachments-too-large" });
    expect(await composeMime(baseInput({ limits: tight, body: "x".repeat(5000) }))).toEqual({
      ok: false,
      reason: "message-too-large",
    });
  });

  it("the agent's display name cannot open a header line", async () => {
    const { email, header } = await composeAndParse(
      baseInput({ from: { address: AGENT.address, name: 'Help"desk\r\nBcc: x@example.com' } }),
    );
    expect(email.from?.address).toBe(AGENT.address);
    expect(header("bcc")).toEqual([]);
    // nodemailer would encode the CRLF into an encoded-word; a reader decoding it must not see a line break.
    expect(email.from?.name).toBe('Help"desk Bcc: x@example.com');
  });
});
