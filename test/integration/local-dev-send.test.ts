import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { SendEmailCommand } from "@aws-sdk/client-sesv2";
import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevKey } from "../../cli/local/dev-keys.ts";
import { devSend } from "../../cli/local/dev-send.ts";
import type { SesReceivedNotification } from "../../cli/local/ses-notification.ts";
import { type LocalStack, startLocalStack } from "../../cli/local/stack.ts";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");
let dir: string;
let stack: LocalStack;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-devsend-"));
  stack = await startLocalStack({ dir, smtpPort: 0, configPath: join(dir, "absent.config.json") });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function nextNotification(): Promise<SesReceivedNotification> {
  const r = await stack.clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: stack.resources.queues.verify,
      WaitTimeSeconds: 2,
      MaxNumberOfMessages: 1,
    }),
  );
  const body = r.Messages?.[0]?.Body;
  if (!body) throw new Error("no notification");
  return JSON.parse(body) as SesReceivedNotification;
}
async function object(key: string): Promise<Buffer> {
  const r = await stack.clients.s3.send(new GetObjectCommand({ Bucket: stack.resources.bucket, Key: key }));
  return Buffer.from(
    await (r.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
}

describe("dev send → local stack", () => {
  it("lands a DKIM-signed raw mail (passing against the zone file) and its envelope in the bucket and queue", async () => {
    const r = await devSend({
      dir,
      zoneFile: stack.zoneFile,
      from: "you@sender.postern.test",
      to: ["helpdesk@demo.postern.test", "bcc-only@demo.postern.test"],
      subject: "Hello",
      body: "Hi there",
      port: stack.smtp.port,
    });
    if (!r.ok) throw new Error(r.reason);
    expect(r.keyCreated).toBe(true);
    const stored = await object(`inbound/${r.sesMessageId}`);
    expect(stored.equals(r.raw)).toBe(true);
    expect(stored.toString("latin1")).toMatch(/^DKIM-Signature: /);

    const v = await dkimVerify(stored, { resolver: stack.resolver as never });
    expect(v.results.map((x) => [x.status.result, x.signingDomain])).toEqual([
      ["pass", "sender.postern.test"],
    ]);

    const n = await nextNotification();
    expect(n.mail.messageId).toBe(r.sesMessageId);
    expect(n.receipt.recipients).toEqual(["helpdesk@demo.postern.test", "bcc-only@demo.postern.test"]);
    expect(n.mail.commonHeaders.messageId).toBe(r.messageId);
  });

  it("`postern dev send` from the command line finds the running stack through stack.json", async () => {
    const { stdout } = await run(
      join(ROOT, "node_modules/.bin/node"),
      [
        join(ROOT, "bin/postern.mjs"),
        "dev",
        "send",
        "--dir",
        dir,
        "--from",
        "cli@sender.postern.test",
        "--to",
        "helpdesk@demo.postern.test",
      ],
      { cwd: dir },
    );
    const id = /stored as inbound\/([a-z0-9]+)/.exec(stdout)?.[1];
    expect(id).toBeDefined();
    const stored = (await object(`inbound/${id}`)).toString("latin1");
    expect(stored).toMatch(/^DKIM-Signature: /);
    expect(stored.replace(/\r\n[ \t]/g, " ").split("\r\n")[0]).toMatch(/\bd=sender\.postern\.test;/);
    expect((await nextNotification()).mail.messageId).toBe(id);
  });

  it("a recipient outside the registered domains is one refusal that says why (not nodemailer's error)", async () => {
    const r = await devSend({
      dir,
      zoneFile: stack.zoneFile,
      from: "you@sender.postern.test",
      to: ["someone@unregistered.example"],
      port: stack.smtp.port,
    });
    expect(r).toMatchObject({ ok: false, reason: "smtp-refused" });
    expect(!r.ok && "detail" in r ? r.detail : "").toMatch(
      /^the local stack refused someone@unregistered\.example: mail is taken only for its registered domains/,
    );
  });

  it("`postern dev send` failures are one line on stderr: --file not a mail (2), refused (1), nobody listening (1)", async () => {
    const notMail = join(dir, "notes.txt");
    writeFileSync(notMail, "just some notes\nno headers here\n");
    const cases = [
      [
        ["--to", "helpdesk@demo.postern.test", "--file", notMail],
        2,
        /^postern dev send: --file .*notes\.txt: this is not a mail message: it has no From header/,
      ],
      [
        ["--to", "x@unregistered.example"],
        1,
        /^postern dev send: the local stack refused x@unregistered\.example/,
      ],
      [
        ["--to", "helpdesk@demo.postern.test", "--port", "1"],
        1,
        /^postern dev send: nothing accepts SMTP at 127\.0\.0\.1:1; start the local stack/,
      ],
    ] as const;
    for (const [extra, code, line] of cases) {
      const r = await run(
        join(ROOT, "node_modules/.bin/node"),
        [
          join(ROOT, "bin/postern.mjs"),
          "dev",
          "send",
          "--dir",
          dir,
          "--from",
          "cli@sender.postern.test",
          ...extra,
        ],
        { cwd: dir },
      ).then(
        () => ({ code: 0, stderr: "" }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
      expect(r.code).toBe(code);
      expect(r.stderr).toMatch(line);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
  });

  it("the stack's SES client reaches the capture (resources.endpoints.ses)", async () => {
    const out = await stack.clients.ses.send(
      new SendEmailCommand({ Content: { Raw: { Data: Buffer.from("Subject: x\r\n\r\ny\r\n") } } }),
    );
    // As SES sends it: its own Message-ID (named for the stack's region) and Date, then our bytes.
    const eml = readFileSync(join(stack.outboxDir, `${out.MessageId}.eml`), "latin1").split("\r\n");
    expect(eml[0]).toMatch(
      new RegExp(`^Message-ID: <${out.MessageId}@(email|${stack.resources.region})\\.amazonses\\.com>$`),
    );
    expect(eml[1]).toMatch(/^Date: /);
    expect(eml.slice(2).join("\r\n")).toBe("Subject: x\r\n\r\ny\r\n");
  });

  it("the demo is set up: config, script, signing key record, seeded agent", async () => {
    expect(stack.demo).toBe(true);
    expect(stack.config.config.domains).toEqual(["demo.postern.test"]);
    expect(JSON.parse(readFileSync(join(dir, "demo-script.json"), "utf8")).turns[0].toolCalls[0].name).toBe(
      "send_email",
    );
    const zone = JSON.parse(readFileSync(stack.zoneFile, "utf8"));
    expect(zone["postern._domainkey.demo.postern.test"].TXT[0].join("")).toMatch(/^v=DKIM1; k=rsa; p=/);
    const stackFile = JSON.parse(readFileSync(stack.stackFile, "utf8"));
    expect(stackFile).toMatchObject({ pid: process.pid, resources: { bucket: stack.resources.bucket } });
  });

  it("dev keys refuses a domain or selector that would escape the keys directory", () => {
    expect(ensureDevKey(dir, stack.zoneFile, "../../etc")).toEqual({ ok: false, reason: "invalid-domain" });
    expect(ensureDevKey(dir, stack.zoneFile, "ok.example", "../x")).toEqual({
      ok: false,
      reason: "invalid-selector",
    });
    expect(existsSync(join(dir, "etc.postern.pem"))).toBe(false);
  });
});
