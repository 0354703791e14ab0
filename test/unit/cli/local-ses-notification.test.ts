import { describe, expect, it } from "vitest";
import {
  buildSesNotification,
  HEADERS_LIMIT_BYTES,
  newSesMessageId,
  parseHeaderBlock,
  splitAddressList,
} from "../../../cli/local/ses-notification.ts";

const raw = (s: string) => Buffer.from(s, "utf8");
const base = {
  messageId: "abcdefghij0123456789abcd",
  receivedAt: new Date("2026-01-02T03:04:05.678Z"),
  processingTimeMillis: 12,
  envelope: { mailFrom: "bounce@sender.example", rcptTo: ["a@agents.example", "hidden@agents.example"] },
  topicArn: "arn:aws:sns:us-east-1:000000000000:postern-ses-intake",
  bucketName: "postern-mail",
  objectKeyPrefix: "inbound/",
};

describe("buildSesNotification", () => {
  it("has the shape of an SES receipt-rule S3 notification, recipients from the envelope", () => {
    const n = buildSesNotification({
      ...base,
      raw: raw(
        'From: "Doe, Jane" <jane@sender.example>\r\nTo: a@agents.example\r\nCc: x@y.example, z@y.example\r\n' +
          "Subject: Hello\r\n\tworld\r\nDate: Fri, 2 Jan 2026 03:04:05 +0000\r\nMessage-ID: <m1@sender.example>\r\n\r\nbody\r\nTo: not@header.example\r\n",
      ),
    });
    expect(n).toEqual({
      notificationType: "Received",
      mail: {
        timestamp: "2026-01-02T03:04:05.678Z",
        source: "bounce@sender.example",
        messageId: base.messageId,
        destination: ["a@agents.example", "hidden@agents.example"],
        headersTruncated: false,
        headers: [
          { name: "From", value: '"Doe, Jane" <jane@sender.example>' },
          { name: "To", value: "a@agents.example" },
          { name: "Cc", value: "x@y.example, z@y.example" },
          { name: "Subject", value: "Hello\tworld" },
          { name: "Date", value: "Fri, 2 Jan 2026 03:04:05 +0000" },
          { name: "Message-ID", value: "<m1@sender.example>" },
        ],
        commonHeaders: {
          from: ['"Doe, Jane" <jane@sender.example>'],
          to: ["a@agents.example"],
          cc: ["x@y.example", "z@y.example"],
          subject: "Hello\tworld",
          date: "Fri, 2 Jan 2026 03:04:05 +0000",
          messageId: "<m1@sender.example>",
        },
      },
      receipt: {
        timestamp: "2026-01-02T03:04:05.678Z",
        processingTimeMillis: 12,
        recipients: ["a@agents.example", "hidden@agents.example"],
        spamVerdict: { status: "PASS" },
        virusVerdict: { status: "PASS" },
        spfVerdict: { status: "GRAY" },
        dkimVerdict: { status: "GRAY" },
        dmarcVerdict: { status: "GRAY" },
        action: {
          type: "S3",
          topicArn: base.topicArn,
          bucketName: "postern-mail",
          objectKeyPrefix: "inbound/",
          objectKey: `inbound/${base.messageId}`,
        },
      },
    });
  });

  it("reports the null reverse-path as an empty source", () => {
    const n = buildSesNotification({
      ...base,
      envelope: { mailFrom: "", rcptTo: ["a@agents.example"] },
      raw: raw("Subject: x\r\n\r\n"),
    });
    expect(n.mail.source).toBe("");
  });

  it("truncates the header list past 10 KB and says so", () => {
    const many = Array.from({ length: 400 }, (_, i) => `X-Filler-${i}: ${"v".repeat(40)}\r\n`).join("");
    const n = buildSesNotification({ ...base, raw: raw(`${many}\r\nbody`) });
    expect(n.mail.headersTruncated).toBe(true);
    const size = n.mail.headers.reduce((s, h) => s + h.name.length + h.value.length + 4, 0);
    expect(size).toBeLessThanOrEqual(HEADERS_LIMIT_BYTES);
    expect(n.mail.headers.length).toBeGreaterThan(100);
  });
});

describe("parseHeaderBlock", () => {
  it("stops at the first empty line (CRLF or bare LF) and decodes UTF-8 header bytes", () => {
    expect(parseHeaderBlock(raw("Subject: Grüße\nX-A: 1\n\nX-B: body\n"))).toEqual([
      { name: "Subject", value: "Grüße" },
      { name: "X-A", value: "1" },
    ]);
  });
  it("ignores lines that are not fields and a leading continuation", () => {
    expect(parseHeaderBlock(raw(" orphan\r\nnot a field\r\nA: b\r\n\r\n"))).toEqual([
      { name: "A", value: "b" },
    ]);
  });
});

describe("splitAddressList", () => {
  it("splits on commas outside quotes, angle brackets and comments", () => {
    expect(splitAddressList('"a, b" <a@x.example>, c@x.example (c, d), <e,f@x.example>')).toEqual([
      '"a, b" <a@x.example>',
      "c@x.example (c, d)",
      "<e,f@x.example>",
    ]);
  });
});

describe("newSesMessageId", () => {
  it("is 40 lower-case alphanumerics and differs each time", () => {
    const a = newSesMessageId();
    expect(a).toMatch(/^[a-z0-9]{40}$/);
    expect(newSesMessageId()).not.toBe(a);
  });
  it("rejects bytes >= 252 so every character is equally likely", () => {
    let call = 0;
    const id = newSesMessageId((n) => new Uint8Array(n).fill(call++ === 0 ? 255 : 1));
    expect(id).toBe("b".repeat(40));
  });
});
