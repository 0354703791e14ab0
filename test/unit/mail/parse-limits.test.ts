import type { Email, PostalMimeOptions } from "postal-mime";
import { describe, expect, it } from "vitest";
import { attachmentLimits } from "../../../shared/config/schema.ts";
import { type MimeParser, parseMail } from "../../../shared/mail/parse.ts";
import { flatMultipart, nestedMultiparts, singleLineHeader } from "../../helpers/hostile-inputs.ts";

const defaults = attachmentLimits.parse({});
const crlf = (s: string) => s.replaceAll("\n", "\r\n");
const bytes = (s: string) => Buffer.from(crlf(s), "utf8");

function spyParser(): MimeParser & { calls: PostalMimeOptions[] } {
  const calls: PostalMimeOptions[] = [];
  const fn = (async (_raw: Uint8Array, options: PostalMimeOptions) => {
    calls.push(options);
    return { headers: [], headerLines: [], attachments: [] } as Email;
  }) as MimeParser & { calls: PostalMimeOptions[] };
  fn.calls = calls;
  return fn;
}

function withAttachments(sizes: number[]): Buffer {
  const parts = sizes.map(
    (size, i) =>
      `--b\nContent-Type: application/octet-stream\nContent-Disposition: attachment; filename="f${i}.bin"\nContent-Transfer-Encoding: base64\n\n${Buffer.alloc(size, 7).toString("base64")}\n`,
  );
  return bytes(
    `From: a@x.org\nContent-Type: multipart/mixed; boundary="b"\n\n--b\n\nbody\n${parts.join("")}--b--\n`,
  );
}

describe("parseMail limits (G7)", () => {
  it("refuses a message one byte over maxMessageBytes without scanning it", async () => {
    const spy = spyParser();
    const raw = Buffer.alloc(1001, 0x61);
    const limits = { ...defaults, maxMessageBytes: 1000 };
    expect(await parseMail(raw, limits, spy)).toMatchObject({ ok: false, reason: "message-too-large" });
    expect(await parseMail(raw.subarray(0, 1000), { ...limits, maxHeaderBytes: 2000 }, spy)).toMatchObject({
      ok: true,
    });
    expect(spy.calls).toHaveLength(1);
  });

  it("limits the top header block, line ends included", async () => {
    const header = "Subject: 0123456789\r\n"; // 21 bytes
    const raw = Buffer.from(`${header}\r\nbody\r\n`);
    expect(await parseMail(raw, { ...defaults, maxHeaderBytes: 21 })).toMatchObject({ ok: true });
    expect(await parseMail(raw, { ...defaults, maxHeaderBytes: 20 })).toMatchObject({
      ok: false,
      reason: "headers-too-large",
    });
  });

  it("limits each body part's header block", async () => {
    const raw = bytes(
      `Content-Type: multipart/mixed; boundary=b\n\n--b\nX-Pad: ${"p".repeat(200)}\n\nx\n--b--\n`,
    );
    expect(await parseMail(raw, { ...defaults, maxHeaderBytes: 300 })).toMatchObject({ ok: true });
    expect(await parseMail(raw, { ...defaults, maxHeaderBytes: 150 })).toMatchObject({
      reason: "headers-too-large",
    });
  });

  it("admits maxMimeDepth nested multiparts and refuses one more", async () => {
    const limits = { ...defaults, maxMimeDepth: 4 };
    const ok = await parseMail(nestedMultiparts(4), limits);
    expect(ok).toMatchObject({ ok: true });
    if (ok.ok) expect(ok.mail.text?.trim()).toBe("deep");
    expect(await parseMail(nestedMultiparts(5), limits)).toMatchObject({
      ok: false,
      reason: "mime-too-deep",
    });
  });

  it("admits maxMimeParts entities and refuses one more", async () => {
    const limits = { ...defaults, maxMimeParts: 10 };
    expect(await parseMail(flatMultipart(9), limits)).toMatchObject({ ok: true });
    expect(await parseMail(flatMultipart(10), limits)).toMatchObject({
      ok: false,
      reason: "mime-too-many-parts",
    });
  });

  it("counts an inline message/rfc822 and its tree toward depth and parts", async () => {
    const inner = `Content-Type: message/rfc822\n\nFrom: b@y.org\nContent-Type: multipart/mixed; boundary=i\n\n--i\n\none\n--i\n\ntwo\n--i--\n`;
    const raw = bytes(`From: a@x.org\nContent-Type: multipart/mixed; boundary=o\n\n--o\n${inner}--o--\n`);
    // entities: root, the rfc822 part, the embedded message, its two parts = 5; depth: 1 + 1 + 1 = 3
    expect(await parseMail(raw, { ...defaults, maxMimeParts: 5, maxMimeDepth: 3 })).toMatchObject({
      ok: true,
    });
    expect(await parseMail(raw, { ...defaults, maxMimeParts: 4 })).toMatchObject({
      reason: "mime-too-many-parts",
    });
    expect(await parseMail(raw, { ...defaults, maxMimeDepth: 2 })).toMatchObject({ reason: "mime-too-deep" });
  });

  it("keeps embedded messages opaque when one is transfer-encoded (its tree is invisible to the scan)", async () => {
    const hidden = Buffer.from(
      crlf(`Content-Type: multipart/mixed; boundary=h\n\n${"--h\n\nx\n".repeat(100)}--h--\n`),
    );
    const raw = bytes(
      `From: a@x.org\nContent-Type: multipart/mixed; boundary=o\n\n--o\n\nbody\n--o\nContent-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n${hidden.toString("base64")}\n--o--\n`,
    );
    const spy = spyParser();
    await parseMail(raw, defaults, spy);
    expect(spy.calls[0]?.forceRfc822Attachments).toBe(true);
    const real = await parseMail(raw, defaults);
    expect(real).toMatchObject({ ok: true, mail: { attachments: [{ contentType: "message/rfc822" }] } });
  });

  it("checks attachment count, size and total after parsing", async () => {
    const limits = { ...defaults, maxAttachments: 2, maxAttachmentBytes: 100, maxTotalAttachmentBytes: 150 };
    expect(await parseMail(withAttachments([100, 50]), limits)).toMatchObject({ ok: true });
    expect(await parseMail(withAttachments([1, 1, 1]), limits)).toMatchObject({
      reason: "too-many-attachments",
    });
    expect(await parseMail(withAttachments([101]), limits)).toMatchObject({ reason: "attachment-too-large" });
    expect(await parseMail(withAttachments([100, 51]), limits)).toMatchObject({
      reason: "attachments-too-large",
    });
  });
});

describe("hostile MIME is refused before postal-mime runs", () => {
  it("10,000 nested multiparts", async () => {
    const spy = spyParser();
    const raw = nestedMultiparts(10_000);
    expect(await parseMail(raw, { ...defaults, maxMessageBytes: 64 << 20 }, spy)).toMatchObject({
      ok: false,
      reason: "mime-too-deep",
    });
    expect(spy.calls).toHaveLength(0);
  });

  it("100,000 parts", async () => {
    const spy = spyParser();
    const raw = flatMultipart(100_000);
    expect(await parseMail(raw, { ...defaults, maxMessageBytes: 64 << 20 }, spy)).toMatchObject({
      ok: false,
      reason: "mime-too-many-parts",
    });
    expect(spy.calls).toHaveLength(0);
  });

  it("a 50 MB single-line header", async () => {
    const spy = spyParser();
    const raw = singleLineHeader(50 << 20);
    expect(await parseMail(raw, { ...defaults, maxMessageBytes: 64 << 20 }, spy)).toMatchObject({
      ok: false,
      reason: "headers-too-large",
    });
    expect(spy.calls).toHaveLength(0);
  });

  it("a header block made of lone CRs (postal-mime splits on LF only) counts as one header", async () => {
    const spy = spyParser();
    const raw = Buffer.from(`Subject: x\r${"X-A: b\r".repeat(20_000)}\rbody`);
    expect(await parseMail(raw, defaults, spy)).toMatchObject({ reason: "headers-too-large" });
    expect(spy.calls).toHaveLength(0);
  });

  it("a boundary hidden behind a comment, quotes or RFC 2231 sections is still seen", async () => {
    const spy = spyParser();
    const limits = { ...defaults, maxMimeParts: 10 };
    const body = "--zz\r\n\r\nx\r\n".repeat(20);
    for (const ct of [
      "multipart/mixed (comment; boundary=no); boundary=zz",
      'multipart/mixed; boundary="zz"',
      "Multipart/Mixed; BOUNDARY=zz",
      "multipart/mixed; boundary*0=z; boundary*1=z",
      "multipart/mixed; boundary*0*=utf-8''%7A; boundary*1*=%7A",
      "multipart/mixed;\r\n\tboundary=zz",
    ]) {
      const raw = Buffer.from(`Content-Type: ${ct}\r\n\r\n${body}--zz--\r\n`);
      expect(await parseMail(raw, limits, spy), ct).toMatchObject({ reason: "mime-too-many-parts" });
    }
    expect(spy.calls).toHaveLength(0);
  });

  it("the first Content-Type wins, as in postal-mime", async () => {
    const spy = spyParser();
    const body = "--zz\r\n\r\nx\r\n".repeat(20);
    const raw = Buffer.from(
      `Content-Type: multipart/mixed; boundary=zz\r\nContent-Type: text/plain\r\n\r\n${body}`,
    );
    expect(await parseMail(raw, { ...defaults, maxMimeParts: 10 }, spy)).toMatchObject({
      reason: "mime-too-many-parts",
    });
  });
});
