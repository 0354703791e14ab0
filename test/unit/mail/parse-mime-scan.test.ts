import { describe, expect, it } from "vitest";
import { scanMime } from "../../../shared/mail/mime-scan.ts";

const crlf = (s: string) => Buffer.from(s.replaceAll("\n", "\r\n"));
const budget = { maxHeaderBytes: 1000, maxMimeDepth: 5, maxMimeParts: 10 };
const unlimited = { maxHeaderBytes: 1e9, maxMimeDepth: 1e9, maxMimeParts: 1e9 };

describe("scanMime stops as soon as a budget is exceeded", () => {
  it("counts parts only up to one past the budget", () => {
    const raw = crlf(`Content-Type: multipart/mixed; boundary=b\n\n${"--b\n\nx\n".repeat(1000)}--b--\n`);
    expect(scanMime(raw, budget)).toMatchObject({ parts: 11, stoppedEarly: true });
    expect(scanMime(raw, unlimited)).toMatchObject({ parts: 1001, stoppedEarly: false });
  });

  it("stops on consecutive boundary lines too (parts with no header lines)", () => {
    const raw = crlf(`Content-Type: multipart/mixed; boundary=b\n\n${"--b\n".repeat(1000)}`);
    expect(scanMime(raw, budget)).toMatchObject({ parts: 11, stoppedEarly: true });
  });

  it("stops inside an oversized header block", () => {
    const raw = Buffer.from(`Subject: ${"a".repeat(50)}\r\n`.repeat(100));
    const scan = scanMime(raw, budget);
    expect(scan.stoppedEarly).toBe(true);
    expect(scan.headerBytes).toBeLessThanOrEqual(budget.maxHeaderBytes + 61);
    expect(scanMime(raw, unlimited).headerBytes).toBe(raw.length);
  });

  it("stops one level past the depth budget", () => {
    let raw = "x";
    for (let i = 0; i < 50; i++)
      raw = `Content-Type: multipart/mixed; boundary=b${i}\n\n--b${i}\n${raw}\n--b${i}--\n`;
    expect(scanMime(crlf(raw), budget)).toMatchObject({ depth: 6, stoppedEarly: true });
  });
});

describe("scanMime reads the tree the way postal-mime does", () => {
  it("gives an enclosing message's boundary priority over an embedded message's", () => {
    // The embedded message reuses the outer boundary: postal-mime's outer parser sees every `--o` line first,
    // so the embedded message ends at its first `--o` and the rest are outer parts.
    const raw = crlf(
      `Content-Type: multipart/mixed; boundary=o\n\n--o\nContent-Type: message/rfc822\n\nContent-Type: multipart/mixed; boundary=o\n\n--o\n\na\n--o\n\nb\n--o--\n`,
    );
    // root, rfc822 part, embedded root, then two outer parts = 5; depth: part 1, embedded 2.
    expect(scanMime(raw, unlimited)).toMatchObject({ parts: 5, depth: 2 });
  });

  it("does not take a field name with a leading NBSP for Content-Type", () => {
    const raw = Buffer.from(
      `\u00a0Content-Type: multipart/mixed; boundary=zz\r\n\r\n${"--zz\r\n\r\nx\r\n".repeat(20)}`,
    );
    expect(scanMime(raw, unlimited)).toMatchObject({ parts: 1, depth: 0 });
  });

  it("trims SP and HTAB around a field name, as postal-mime does", () => {
    const raw = crlf(`Content-Type \t: multipart/mixed; boundary=zz\n\n--zz\n\nx\n--zz--\n`);
    expect(scanMime(raw, unlimited)).toMatchObject({ parts: 2, depth: 1 });
  });

  it("reads a folded Content-Type", () => {
    const raw = crlf(`Content-Type: multipart/mixed;\n boundary=zz\n\n--zz\n\nx\n--zz--\n`);
    expect(scanMime(raw, unlimited)).toMatchObject({ parts: 2, depth: 1 });
  });

  it("treats the parts of a multipart/digest as embedded messages", () => {
    const raw = crlf(`Content-Type: multipart/digest; boundary=d\n\n--d\n\nSubject: inner\n\nbody\n--d--\n`);
    expect(scanMime(raw, unlimited)).toMatchObject({ parts: 3, depth: 2 });
  });

  it("ends a line at LF with any trailing CRs dropped", () => {
    const raw = Buffer.from(
      "Content-Type: multipart/mixed; boundary=b\r\r\n\r\r\n--b\r\r\n\r\nx\r\n--b--\r\r\n",
    );
    expect(scanMime(raw, unlimited)).toMatchObject({ parts: 2, depth: 1 });
  });

  it("flags a transfer-encoded inline message/rfc822 and does not descend into it", () => {
    const raw = crlf(
      `Content-Type: multipart/mixed; boundary=o\n\n--o\nContent-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\nQUJD\n--o--\n`,
    );
    expect(scanMime(raw, unlimited)).toMatchObject({ parts: 2, encodedEmbeddedMessage: true });
    const attached = crlf(
      `Content-Type: multipart/mixed; boundary=o\n\n--o\nContent-Type: message/rfc822\nContent-Disposition: attachment\n\nSubject: x\n\ny\n--o--\n`,
    );
    expect(scanMime(attached, unlimited)).toMatchObject({ parts: 2, encodedEmbeddedMessage: false });
  });
});
