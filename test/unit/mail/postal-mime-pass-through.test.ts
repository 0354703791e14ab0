import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import PostalMime, { type Email } from "postal-mime";
import { describe, expect, it, vi } from "vitest";
// postal-mime's own decoder, by path: its package exports only the parser
import PassThroughDecoder from "../../../node_modules/postal-mime/dist/esm/pass-through-decoder.js";
import { attachmentLimits } from "../../../shared/config/schema.ts";
import { parseMail } from "../../../shared/mail/parse.ts";
import {
  CompactPassThroughDecoder,
  installCompactPassThrough,
} from "../../../shared/mail/postal-mime-pass-through.ts";

// shared/mail/postal-mime-pass-through.ts swaps postal-mime's decoder for 7bit/8bit/binary parts. It must yield the
// same bytes, so every parse is the same as postal-mime's own; and it must keep a long plain-text mail's memory
// near its size.

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../../..");
const MIME = join(ROOT, "test/fixtures/mime");

async function decoded(
  decoder: { update(l: Uint8Array): void; finalize(): Promise<ArrayBuffer> },
  lines: Uint8Array[],
) {
  for (const line of lines) decoder.update(line);
  return new Uint8Array(await decoder.finalize());
}

/** An Email as JSON, attachment bytes as digests. */
function digest(email: Email): unknown {
  return JSON.parse(
    JSON.stringify(email, (_key, v) =>
      v instanceof ArrayBuffer || v instanceof Uint8Array
        ? `sha256:${createHash("sha256")
            .update(v instanceof ArrayBuffer ? new Uint8Array(v) : v)
            .digest("hex")}`
        : v,
    ),
  );
}

/** postal-mime as shipped (no swap), in a fresh Node process: the digest of each file's parse. */
async function unpatched(files: string[]): Promise<unknown[]> {
  const script = `
    import { readFileSync } from "node:fs";
    import { createHash } from "node:crypto";
    import PostalMime from "postal-mime";
    const out = [];
    for (const f of JSON.parse(process.argv[1])) {
      try {
        const email = await PostalMime.parse(readFileSync(f));
        out.push(JSON.parse(JSON.stringify(email, (_k, v) => v instanceof ArrayBuffer || v instanceof Uint8Array
          ? "sha256:" + createHash("sha256").update(v instanceof ArrayBuffer ? new Uint8Array(v) : v).digest("hex") : v)));
      } catch (err) { out.push({ error: String(err) }); }
    }
    process.stdout.write(JSON.stringify(out));`;
  const { stdout } = await run(
    process.execPath,
    ["--input-type=module", "-e", script, JSON.stringify(files)],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as unknown[];
}

async function patched(files: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const f of files) {
    try {
      out.push(digest(await PostalMime.parse(readFileSync(f))));
    } catch (err) {
      out.push({ error: String(err) });
    }
  }
  return out;
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (!/^(README|CORPUS-README|LICENSE|COPYRIGHT)|\.tsv$/.test(name)) yield path;
  }
}

describe("CompactPassThroughDecoder", () => {
  it("yields postal-mime's PassThroughDecoder bytes for any lines, across its 64 KB segments", async () => {
    const line = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.integer({ min: 64 * 1024 - 2, max: 64 * 1024 + 2 }).map((n) => new Uint8Array(n).fill(0x61)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 40 }), async (lines) => {
        const theirs = await decoded(new PassThroughDecoder(), lines as Uint8Array<ArrayBuffer>[]);
        expect(await decoded(new CompactPassThroughDecoder(), lines)).toEqual(theirs);
      }),
      { numRuns: 40 },
    );
  });

  it("is what postal-mime uses for 7bit, 8bit, binary and unknown encodings (and not for base64 or QP)", async () => {
    installCompactPassThrough(); // idempotent: shared/mail/parse.ts installed it already
    const root = Object.getPrototypeOf((new PostalMime() as unknown as { root: object }).root) as {
      setupContentDecoder(this: { contentDecoder: unknown }, te: string): void;
    };
    for (const [te, compact] of [
      ["", true],
      ["7bit", true],
      ["8BIT", true],
      ["binary", true],
      ["x-uuencode", true],
      ["base64", false],
      ["Quoted-Printable", false],
    ] as const) {
      const node = { contentDecoder: null as unknown };
      root.setupContentDecoder.call(node, te);
      expect(node.contentDecoder instanceof CompactPassThroughDecoder, te).toBe(compact);
    }
  });
});

describe("postal-mime with the compact decoder", () => {
  it("parses the MIME corpus exactly as postal-mime alone", async () => {
    const files = [...walk(MIME)];
    expect(files.length).toBe(113);
    expect(await patched(files)).toEqual(await unpatched(files));
  });

  it("parses generated 7bit/8bit/binary shapes exactly as postal-mime alone", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "postern-pass-through-"));
    try {
      const bodies = [
        "plain\r\nlines\r\n",
        "no final line break",
        "bare\nLF\nlines\n",
        "CR\rinside\r\r\nand trailing CRs\r\r\r\n",
        "= signs =3D and soft= \r\nbreaks=\r\n",
        "\u00e9t\u00e9 8bit caf\u00e9\r\n",
        `${"long ".repeat(30_000)}\r\n`,
        "\r\n\r\n\r\n",
      ];
      const files: string[] = [];
      for (const [i, body] of bodies.entries()) {
        for (const [j, shape] of [
          `Content-Type: text/plain; charset=utf-8\r\n\r\n${body}`,
          `Content-Type: text/html; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${body}`,
          `Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n${body}\r\n--b\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\n\r\n${body}\r\n--b\r\nContent-Type: message/rfc822\r\n\r\nSubject: inner\r\nContent-Type: text/plain\r\n\r\n${body}\r\n--b--\r\n`,
        ].entries()) {
          const f = join(tmp, `${i}-${j}.eml`);
          writeFileSync(f, Buffer.from(`From: a@example.com\r\nSubject: s\r\n${shape}`, "latin1"));
          files.push(f);
        }
      }
      expect(await patched(files)).toEqual(await unpatched(files));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("keeps a 9.8 MB plain-text mail's parse near its size (postal-mime's own decoder: +335 MB)", async () => {
    // In a fresh process, so the peak is this parse's own. Its growth is counted from the higher of the resident
    // size after the imports and the peak they reached: loading the modules (tsx compiling them, cold in a full run)
    // can peak above the parse on a loaded machine (+187 MB was seen), while postal-mime's own decoder adds +335 MB
    // above either.
    const script = `
      import { parseMail } from "./shared/mail/parse.ts";
      import { attachmentLimits } from "./shared/config/schema.ts";
      const line = "The quarterly numbers are attached and look fine to me, thanks for sending them over.\\r\\n";
      const raw = Buffer.from("From: a@example.com\\r\\nContent-Type: text/plain\\r\\n\\r\\n" + line.repeat(Math.ceil(9.8 * 1024 * 1024 / line.length)));
      globalThis.gc();
      const before = Math.max(process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
      const r = await parseMail(raw, attachmentLimits.parse({ maxMessageBytes: 20 * 1024 * 1024 }));
      if (!r.ok) throw new Error(r.reason);
      process.stdout.write(String((process.resourceUsage().maxRSS * 1024 - before) / 1048576));`;
    const { stdout } = await run(
      process.execPath,
      ["--expose-gc", "--import", "tsx", "--input-type=module", "-e", script],
      { cwd: ROOT },
    );
    expect(Number(stdout)).toBeLessThan(120);
  });

  it("parseMail gives postal-mime the message without a copy when it owns its buffer, else the view", async () => {
    const parse = vi.spyOn(PostalMime, "parse");
    try {
      const owned = new Uint8Array(Buffer.from("From: a@example.com\r\nSubject: s\r\n\r\nbody\r\n"));
      expect((await parseMail(owned, attachmentLimits.parse({}))).ok).toBe(true);
      expect(parse.mock.calls[0]?.[0]).toBe(owned.buffer);
      const view = owned.subarray(0, owned.length - 2);
      expect((await parseMail(view, attachmentLimits.parse({}))).ok).toBe(true);
      expect(parse.mock.calls[1]?.[0]).toBe(view);
    } finally {
      parse.mockRestore();
    }
  });
});
