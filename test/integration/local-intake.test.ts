import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SesReceivedNotification } from "../../cli/local/ses-notification.ts";
import { startSmtpIntake } from "../../cli/local/smtp-intake.ts";
import { type LocalStack, startLocalStack } from "../../cli/local/stack.ts";

/** A hand-written SMTP client, so the test controls every byte on the wire (RFC 5321 dot-stuffing included). */
class RawSmtp {
  #buf = "";
  #waiters: (() => void)[] = [];
  readonly socket: Socket;
  constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (d) => {
      this.#buf += d.toString("latin1");
      for (const w of this.#waiters.splice(0)) w();
    });
  }
  static async open(port: number): Promise<RawSmtp> {
    const socket = connect(port, "127.0.0.1");
    await new Promise((res, rej) => socket.once("connect", res).once("error", rej));
    const c = new RawSmtp(socket);
    await c.reply();
    return c;
  }
  /** Read one (possibly multi-line) reply: lines `NNN-...` continue, `NNN ...` ends. */
  async reply(): Promise<string> {
    for (;;) {
      const m = /^(?:\d{3}-[^\r\n]*\r\n)*\d{3} [^\r\n]*\r\n/.exec(this.#buf);
      if (m) {
        this.#buf = this.#buf.slice(m[0].length);
        return m[0];
      }
      await new Promise<void>((res) => this.#waiters.push(res));
    }
  }
  async cmd(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }
  async data(wire: Buffer): Promise<string> {
    const go = await this.cmd("DATA");
    if (!go.startsWith("354")) return go;
    // RFC 5321 §4.1.1.4: the CRLF before the terminating "." ends the message's last line; it is message data.
    if (!wire.toString("latin1").endsWith("\r\n"))
      throw new Error("SMTP can only carry mail whose last line ends in CRLF");
    this.socket.write(wire);
    this.socket.write(".\r\n");
    return this.reply();
  }
  close(): void {
    this.socket.end("QUIT\r\n");
  }
}

/** RFC 5321 §4.5.2: a line starting with "." gets one more "." on the wire. */
function dotStuff(message: Buffer): Buffer {
  return Buffer.from(message.toString("latin1").replace(/(^|\r\n)\./g, "$1.."), "latin1");
}

// What the client means to deliver: CRLF line ends, an 8-bit UTF-8 body, a line starting with "." and one
// that is just "..", a bare LF inside a line and trailing whitespace that must all survive untouched.
const MESSAGE = Buffer.concat([
  Buffer.from(
    "From: Alice <alice@sender.example>\r\n" +
      "To: helpdesk@demo.postern.test\r\n" +
      "Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\r\n" +
      "Message-ID: <byte-exact-1@sender.example>\r\n" +
      "MIME-Version: 1.0\r\n" +
      "Content-Type: text/plain; charset=utf-8\r\n" +
      "Content-Transfer-Encoding: 8bit\r\n" +
      "\r\n",
  ),
  Buffer.from("Grüße aus Köln — ✓ 8-bit body\r\n", "utf8"),
  Buffer.from(
    ".leading dot line\r\n..\r\n.\tdot-tab\r\ntrailing spaces   \r\nbare\nlf inside\r\nlast line\r\n",
    "utf8",
  ),
]);

let dir: string;
let stack: LocalStack;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-intake-"));
  stack = await startLocalStack({
    dir,
    smtpPort: 0,
    configPath: join(dir, "absent.config.json"),
  });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function receiveNotification(): Promise<SesReceivedNotification> {
  const r = await stack.clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: stack.resources.queues.verify,
      WaitTimeSeconds: 2,
      MaxNumberOfMessages: 1,
    }),
  );
  const body = r.Messages?.[0]?.Body;
  if (!body) throw new Error("no notification in the verify queue");
  return JSON.parse(body) as SesReceivedNotification;
}

async function objectBytes(key: string): Promise<Buffer> {
  const r = await stack.clients.s3.send(new GetObjectCommand({ Bucket: stack.resources.bucket, Key: key }));
  return Buffer.from(
    await (r.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
}

describe("SMTP intake → S3 + verify queue", () => {
  it("advertises 8BITMIME and SMTPUTF8 and offers no AUTH or STARTTLS", async () => {
    const c = await RawSmtp.open(stack.smtp.port);
    const ehlo = await c.cmd("EHLO client.example");
    c.close();
    expect(ehlo).toMatch(/^250[- ]8BITMIME\r$/m);
    expect(ehlo).toMatch(/^250[- ]SMTPUTF8\r$/m);
    expect(ehlo).not.toMatch(/STARTTLS|AUTH/);
  });

  it("stores the exact bytes the client meant and enqueues the SES notification with the envelope", async () => {
    const c = await RawSmtp.open(stack.smtp.port);
    await c.cmd("EHLO client.example");
    expect(await c.cmd("MAIL FROM:<bounce+1@sender.example> BODY=8BITMIME")).toMatch(/^250/);
    expect(await c.cmd("RCPT TO:<helpdesk@demo.postern.test>")).toMatch(/^250/);
    // Bcc-style: in the envelope, in no header.
    expect(await c.cmd("RCPT TO:<hidden@demo.postern.test>")).toMatch(/^250/);
    const done = await c.data(dotStuff(MESSAGE));
    c.close();
    const id = /^250 Ok ([a-z0-9]+)/.exec(done)?.[1];
    expect(id).toMatch(/^[a-z0-9]{20,}$/);

    const stored = await objectBytes(`inbound/${id}`);
    expect(stored.equals(MESSAGE)).toBe(true);

    const n = await receiveNotification();
    expect(n.notificationType).toBe("Received");
    expect(n.mail.messageId).toBe(id);
    expect(n.mail.source).toBe("bounce+1@sender.example");
    expect(n.receipt.recipients).toEqual(["helpdesk@demo.postern.test", "hidden@demo.postern.test"]);
    expect(n.mail.destination).toEqual(["helpdesk@demo.postern.test", "hidden@demo.postern.test"]);
    expect(n.receipt.action).toEqual({
      type: "S3",
      topicArn: stack.emulators.intakeTopicArn,
      bucketName: stack.resources.bucket,
      objectKeyPrefix: "inbound/",
      objectKey: `inbound/${id}`,
    });
    expect(n.mail.commonHeaders.messageId).toBe("<byte-exact-1@sender.example>");
    expect(n.mail.commonHeaders.to).toEqual(["helpdesk@demo.postern.test"]);
  });

  it("reports the null reverse-path (bounces) as an empty source", async () => {
    const c = await RawSmtp.open(stack.smtp.port);
    await c.cmd("EHLO client.example");
    await c.cmd("MAIL FROM:<>");
    await c.cmd("RCPT TO:<helpdesk@demo.postern.test>");
    expect(await c.data(Buffer.from("Subject: bounce\r\n\r\nbody\r\n"))).toMatch(/^250/);
    c.close();
    expect((await receiveNotification()).mail.source).toBe("");
  });

  it("refuses recipients outside the registered domains, as SES does with no matching receipt rule", async () => {
    const c = await RawSmtp.open(stack.smtp.port);
    await c.cmd("EHLO client.example");
    await c.cmd("MAIL FROM:<a@sender.example>");
    const r = await c.cmd("RCPT TO:<someone@elsewhere.example>");
    c.close();
    expect(r).toMatch(/^550 /);
  });

  it("refuses mail over the size limit with 552 and stores nothing", async () => {
    const stored: string[] = [];
    const intake = await startSmtpIntake({
      port: 0,
      maxMessageBytes: 1000,
      bucketName: "b",
      topicArn: "arn:aws:sns:us-east-1:000000000000:t",
      store: async (key) => void stored.push(key),
      publish: async () => {},
    });
    try {
      const c = await RawSmtp.open(intake.port);
      await c.cmd("EHLO client.example");
      await c.cmd("MAIL FROM:<a@sender.example>");
      await c.cmd("RCPT TO:<helpdesk@demo.postern.test>");
      const big = await c.data(Buffer.from(`Subject: big\r\n\r\n${"x".repeat(2000)}\r\n`));
      const small = await c.data(Buffer.from("Subject: small\r\n\r\nok\r\n"));
      c.close();
      expect(big).toMatch(/^552 /);
      expect(small).toMatch(/^503 /); // the envelope ended with the refused message
      expect(stored).toEqual([]);
    } finally {
      await intake.stop();
    }
  });
});
