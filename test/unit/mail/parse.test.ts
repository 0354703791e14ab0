import type { Email, PostalMimeOptions } from "postal-mime";
import { describe, expect, it } from "vitest";
import { attachmentLimits } from "../../../shared/config/schema.ts";
import { type MimeParser, messageIds, parseMail } from "../../../shared/mail/parse.ts";

const defaults = attachmentLimits.parse({});
const bytes = (s: string) => Buffer.from(s.replaceAll("\n", "\r\n"), "utf8");

const simple = bytes(`From: Alice <alice@x.org>
To: Team: bob@y.org, "Carol C" <carol@y.org>;, dave@y.org
Cc: =?utf-8?q?Ev=C3=A9?= <eve@y.org>
Subject: =?utf-8?q?Caf=C3=A9?= plans
Message-ID: <m1@x.org>
In-Reply-To: <m0@x.org>
References: <r1@x.org>
 <m0@x.org>
Date: Tue, 1 Jul 2025 10:00:00 +0000
X-Postern-Recursion: 2
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: multipart/alternative; boundary=inner

--inner
Content-Type: text/plain; charset=utf-8

Hello team
--inner
Content-Type: text/html; charset=utf-8

<p>Hello team</p>
--inner--
--outer
Content-Type: application/pdf; name="plan.pdf"
Content-Disposition: attachment; filename="plan.pdf"
Content-ID: <c1@x.org>
Content-Transfer-Encoding: base64

JVBERi0xLjQK
--outer--
`);

/** A parser that records whether it ran; the gate must refuse hostile input before reaching it. */
function spyParser(): MimeParser & { calls: PostalMimeOptions[] } {
  const calls: PostalMimeOptions[] = [];
  const fn = (async (_raw: Uint8Array, options: PostalMimeOptions) => {
    calls.push(options);
    return { headers: [], headerLines: [], attachments: [] } as Email;
  }) as MimeParser & { calls: PostalMimeOptions[] };
  fn.calls = calls;
  return fn;
}

describe("parseMail output", () => {
  it("maps a multipart message to ParsedMail", async () => {
    const result = await parseMail(simple, defaults);
    if (!result.ok) throw new Error(result.detail);
    const mail = result.mail;
    expect(mail.messageId).toBe("<m1@x.org>");
    expect(mail.inReplyTo).toBe("<m0@x.org>");
    expect(mail.references).toEqual(["<r1@x.org>", "<m0@x.org>"]);
    expect(mail.subject).toBe("Café plans");
    expect(mail.subjectCount).toBe(1);
    expect(mail.date).toBe("2025-07-01T10:00:00.000Z");
    // To and Cc are the gate's to read, strictly and only where signed (gate/signed-recipients.ts)
    expect(mail).not.toHaveProperty("to");
    expect(mail).not.toHaveProperty("cc");
    expect(mail.text?.trim()).toBe("Hello team");
    expect(mail.html).toContain("<p>Hello team</p>");
    expect(mail.attachments).toHaveLength(1);
    const [att] = mail.attachments;
    expect(att).toMatchObject({
      filename: "plan.pdf",
      contentType: "application/pdf",
      size: 9,
      disposition: "attachment",
      contentId: "<c1@x.org>",
    });
    expect(att?.content).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(att?.content ?? []).toString()).toBe("%PDF-1.4\n");
    expect(mail.headers.map((h) => h.key)).toContain("x-postern-recursion");
    expect(mail.headers.every((h) => h.key === h.key.toLowerCase())).toBe(true);
  });

  it("counts duplicate Subject fields and keeps the first", async () => {
    const r = await parseMail(bytes("Subject: one\nSubject: two\nFrom: a@x.org\n\nbody\n"), defaults);
    expect(r).toMatchObject({ ok: true, mail: { subject: "one", subjectCount: 2 } });
  });

  it("reports absent fields as null / empty", async () => {
    const r = await parseMail(bytes("From: a@x.org\n\n"), defaults);
    expect(r).toMatchObject({
      ok: true,
      mail: { messageId: null, inReplyTo: null, references: [], subject: null, subjectCount: 0, date: null },
    });
    if (r.ok) expect([r.mail.text, r.mail.html]).toEqual([null, null]);
  });

  it("passes its limits to postal-mime as a second line of defence", async () => {
    const spy = spyParser();
    await parseMail(simple, defaults, spy);
    expect(spy.calls).toEqual([
      {
        attachmentEncoding: "arraybuffer",
        maxNestingDepth: defaults.maxMimeDepth + 1,
        maxHeadersSize: defaults.maxHeaderBytes * (defaults.maxMimeParts + 1),
        maxRfc822NestingDepth: defaults.maxMimeDepth,
        forceRfc822Attachments: false,
      },
    ]);
  });

  it("turns a parser rejection into mime-unparseable", async () => {
    const failing: MimeParser = async () => {
      throw new Error("boom");
    };
    expect(await parseMail(simple, defaults, failing)).toEqual({
      ok: false,
      reason: "mime-unparseable",
      detail: "boom",
    });
  });
});

describe("messageIds", () => {
  it("extracts bracketed ids, else words", () => {
    expect(messageIds("<a@x> junk <b@y>")).toEqual(["<a@x>", "<b@y>"]);
    expect(messageIds("a@x  b@y")).toEqual(["a@x", "b@y"]);
    expect(messageIds("<unterminated")).toEqual(["<unterminated"]);
    expect(messageIds(undefined)).toEqual([]);
  });
});
