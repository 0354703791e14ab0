import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SESv2Client, SendEmailCommand } from "@aws-sdk/client-sesv2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SesCapture, startSesCapture, UNVERIFIED_DOMAIN } from "../../cli/local/ses-capture.ts";
import { sesSender } from "../../shared/aws/ses-sender.ts";

/** The outbound capture, driven by the real SESv2 client exactly as the outbound handler will drive SES. */
let dir: string;
let capture: SesCapture;
let ses: SESv2Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-ses-"));
  capture = await startSesCapture({ outboxDir: join(dir, "outbox") });
  ses = new SESv2Client({
    region: "us-east-1",
    endpoint: capture.endpoint,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
});
afterAll(async () => {
  ses?.destroy();
  await capture?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// Raw mail as the outbound handler will build it: CRLF, 8-bit UTF-8, a dot-leading line, no trailing CRLF.
const RAW = Buffer.concat([
  Buffer.from("From: helpdesk@demo.postern.test\r\nTo: you@sender.example\r\nSubject: Re: Hi\r\n"),
  Buffer.from("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"),
  Buffer.from("Grüße ✓\r\n.dot\r\n..\r\nbare\nlf\r\nno final newline", "utf8"),
]);

describe("SES capture", () => {
  it("keeps the raw mail byte for byte, but for the Message-ID and Date SES writes, and answers like SES", async () => {
    const out = await ses.send(
      new SendEmailCommand({
        FromEmailAddress: "helpdesk@demo.postern.test",
        Destination: { ToAddresses: ["you@sender.example"], BccAddresses: ["audit@demo.postern.test"] },
        ConfigurationSetName: "postern",
        Content: { Raw: { Data: RAW } },
      }),
    );
    expect(out.MessageId).toMatch(/^0100[0-9a-f]{12}-[0-9a-f-]{36}-000000$/);
    const eml = readFileSync(join(dir, "outbox", `${out.MessageId}.eml`));
    const lines = eml.toString("latin1").split("\r\n");
    expect(lines[0]).toBe(`Message-ID: <${out.MessageId}@email.amazonses.com>`);
    expect(lines[1]).toMatch(
      /^Date: (Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$/,
    );
    expect(eml.subarray(Buffer.byteLength(`${lines[0]}\r\n${lines[1]}\r\n`)).equals(RAW)).toBe(true);
    const meta = JSON.parse(readFileSync(join(dir, "outbox", `${out.MessageId}.json`), "utf8"));
    expect(meta).toMatchObject({
      messageId: out.MessageId,
      fromEmailAddress: "helpdesk@demo.postern.test",
      destination: { ToAddresses: ["you@sender.example"], BccAddresses: ["audit@demo.postern.test"] },
      configurationSetName: "postern",
      bytes: RAW.length,
    });
  });

  it("refuses Simple content (SES would rebuild it; nothing byte-exact to keep) with an SES error", async () => {
    const err = await ses
      .send(
        new SendEmailCommand({
          FromEmailAddress: "helpdesk@demo.postern.test",
          Destination: { ToAddresses: ["you@sender.example"] },
          Content: { Simple: { Subject: { Data: "x" }, Body: { Text: { Data: "y" } } } },
        }),
      )
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe("BadRequestException");
  });

  it("refuses an unverified recipient as the SES sandbox does: MessageRejected, SES's message naming it", async () => {
    const before = readdirSync(join(dir, "outbox")).length;
    const unverified = `carol@${UNVERIFIED_DOMAIN}`;
    // Through the outbound's own SES port: the refusal arrives as a permanent rejection with SES's words.
    const outcome = await sesSender(ses).send({
      raw: RAW,
      from: "helpdesk@demo.postern.test",
      to: ["you@sender.example"],
      cc: [unverified],
      bcc: [],
    });
    expect(outcome).toEqual({
      kind: "rejected",
      retryable: false,
      code: "MessageRejected",
      message: `Email address is not verified. The following identities failed the check in region US-EAST-1: ${unverified}`,
    });
    expect(readdirSync(join(dir, "outbox")).length).toBe(before);
  });
});
