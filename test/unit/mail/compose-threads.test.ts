import { describe, expect, it } from "vitest";
import { parseAddressList } from "../../../shared/gate/address-list.ts";
import { type ParsedMail, parseMail } from "../../../shared/mail/parse.ts";
import { replyAllRecipients } from "../../../shared/mail/recipients.ts";
import { AGENT, baseInput, composeAndParse, LIMITS, threadFixture } from "../outbound/mail-helpers.ts";

/**
 * A reply to a reply in Gmail- and Outlook-shaped threads (fixtures: test/fixtures/threads). The inbound side is
 * parsed by the real parser (shared/mail/parse.ts); our reply is read back by postal-mime.
 */
async function inbound(name: string) {
  const parsed = await parseMail(threadFixture(name), LIMITS);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.mail;
}

/** A field's addresses as the gate reads them: the strict parser, never postal-mime's. */
const listed = (mail: ParsedMail, name: "to" | "cc") =>
  parseAddressList(mail.headers.find((h) => h.key === name)?.value ?? "").addresses.map((m) => m.address);

async function agentReplyTo(name: string, hop = 0) {
  const mail = await inbound(name);
  const recipients = replyAllRecipients({
    inboundFrom: mail.headers.find((h) => h.key === "from")?.value.match(/<([^>]+)>/)?.[1] ?? "",
    inboundTo: listed(mail, "to"),
    inboundCc: listed(mail, "cc"),
    agentAddress: AGENT.address,
    max: 20,
  });
  if (!recipients.ok) throw new Error(recipients.reason);
  const parent = {
    subject: mail.subject,
    headerMessageId: mail.messageId,
    references: mail.references,
    inReplyTo: mail.inReplyTo,
    hop,
  };
  return composeAndParse(baseInput({ mode: { kind: "reply", parent }, recipients }));
}

const GMAIL_ROOT = "<CAFq3kR9x7TnVb2YQd0Lw5pZ8vJm1sXe4GhKc6UoNaP3rT0yWbQ@mail.gmail.com>";
const GMAIL_SES = "<0100019a7f3c2b1e-5d7a9c1e-8b2f-4e61-a3d0-9f8e7d6c5b4a-000000@email.amazonses.com>";
const GMAIL_2 = "<CAFq3kR-2mWd8LpQy7Vn0ZsXe4T9uJbKo1HcR6gNaY5iPt3fE_w@mail.gmail.com>";
const OUTLOOK_ROOT =
  "<AM9PR07MB71234A5B6C7D8E9F0A1B2C3D4E5F6A7B8C9D0@AM9PR07MB7123.eurprd07.prod.outlook.com>";
const OUTLOOK_SES = "<0100019a80aa11c2-1f2e3d4c-5b6a-4789-9abc-def012345678-000000@email.amazonses.com>";
const OUTLOOK_2 = "<AM9PR07MB7123F1E2D3C4B5A69788796A5B4C3D2E1F0A@AM9PR07MB7123.eurprd07.prod.outlook.com>";

describe("Gmail-style thread", () => {
  it("first reply threads on the root", async () => {
    const { email } = await agentReplyTo("gmail-1.eml");
    expect(email.subject).toBe("Re: Quarterly report numbers");
    expect(email.inReplyTo).toBe(GMAIL_ROOT);
    expect(email.references).toBe(GMAIL_ROOT);
    expect(email.to?.map((a) => a.address)).toEqual(["alice.example@gmail.com"]);
    expect(email.cc?.map((a) => a.address)).toEqual(["carol@example.org"]);
  });

  it("a reply to the sender's reply: In-Reply-To the reply, References the whole chain, one Re:", async () => {
    const { email, header } = await agentReplyTo("gmail-2.eml", 2);
    expect(email.subject).toBe("Re: Quarterly report numbers");
    expect(email.inReplyTo).toBe(GMAIL_2);
    expect(email.references?.split(/\s+/)).toEqual([GMAIL_ROOT, GMAIL_SES, GMAIL_2]);
    expect(header("x-postern-recursion")).toEqual(["3"]);
    expect(email.from?.address).toBe(AGENT.address);
  });
});

describe("Outlook-style thread", () => {
  it("first reply", async () => {
    const { email } = await agentReplyTo("outlook-1.eml");
    expect(email.subject).toBe("Re: Budget 2027");
    expect(email.inReplyTo).toBe(OUTLOOK_ROOT);
    expect(email.references).toBe(OUTLOOK_ROOT);
  });

  it("a reply to `AW: RE:` collapses the prefixes and keeps the chain; Cc kept", async () => {
    const { email } = await agentReplyTo("outlook-2.eml");
    expect(email.subject).toBe("Re: Budget 2027");
    expect(email.inReplyTo).toBe(OUTLOOK_2);
    expect(email.references?.split(/\s+/)).toEqual([OUTLOOK_ROOT, OUTLOOK_SES, OUTLOOK_2]);
    expect(email.to?.map((a) => a.address)).toEqual(["bernd.beispiel@contoso.onmicrosoft.com"]);
    expect(email.cc?.map((a) => a.address)).toEqual(["Dana.Doe@contoso.com"]);
  });

  it("a parent with In-Reply-To and no References (older Exchange) still yields a full chain", async () => {
    const { email } = await agentReplyTo("outlook-inreplyto-only.eml");
    expect(email.subject).toBe("Re: Access request");
    expect(email.inReplyTo).toBe(
      "<DB7PR02MB5555C0FFEE00112233445566778899AABB@DB7PR02MB5555.eurprd02.prod.outlook.com>",
    );
    expect(email.references?.split(/\s+/)).toEqual([
      "<0100019a81bb22d3-2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d-000000@email.amazonses.com>",
      "<DB7PR02MB5555C0FFEE00112233445566778899AABB@DB7PR02MB5555.eurprd02.prod.outlook.com>",
    ]);
  });
});
