import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { build, type Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { esbuildOptions, VERIFY_STUBS } from "../../infra/bundling.ts";
import { signMessage } from "../../shared/mail/dkim-sign.ts";
import { type Zone, zoneSchema } from "../../shared/runtime/zone-resolver.ts";
import { FIXTURES } from "../helpers/conformance.ts";
import { buildMessage, signWith, testKeys, zoneFor } from "../helpers/dkim-test-keys.ts";
import { ROOT } from "./synth.ts";
import { type ProbeJob, type ProbeResult, probe } from "./verify-probe.ts";

// The verify function's bundle leaves modules out (VERIFY_STUBS, infra/bundling.ts). This file proves, on the
// corpora, that the bundle still does what the unbundled code does: the verify path (sender proof with mailauth's
// complete DKIM results, bounded parsing, fresh text) is bundled exactly as the function is, run in a fresh Node
// process, and every result is compared with the same call made here without a bundle; no stub may be called.
// test/infra/bundle-load.test.ts then runs CDK's own verify bundle end to end on a signed, accepted mail.

const run = promisify(execFile);
const NOW = "2026-06-01T00:00:00.000Z";
/**
 * The cold-start budget for the verify bundle (it was 2.7 MB): parse and compile time grow with it. Thread membership
 * took it to 1,364,797 bytes after the first slimming; leaving the default credential chain out
 * (VERIFY_STUBS) brought it back under, with room for the next feature to fail here rather than grow unnoticed.
 */
const MAX_VERIFY_BUNDLE_BYTES = 1_300_000;

let dir: string;
let handlerMeta: Metafile;
let handlerBytes: number;
let probeBundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-verify-bundle-"));
  const handler = await build({
    ...esbuildOptions(join(ROOT, "functions/verify/handler.ts"), join(dir, "index.mjs"), {
      stubs: VERIFY_STUBS,
    }),
    metafile: true,
  });
  handlerMeta = handler.metafile;
  handlerBytes = statSync(join(dir, "index.mjs")).size;
  probeBundle = join(dir, "probe.mjs");
  await build(esbuildOptions(join(ROOT, "test/infra/verify-probe.ts"), probeBundle, { stubs: VERIFY_STUBS }));
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The probe's results for `jobs`, bundled with verify's stubs, in a fresh process. */
async function bundled(jobs: readonly ProbeJob[]): Promise<ProbeResult[]> {
  const jobsFile = join(dir, "jobs.json");
  const resultFile = join(dir, "results.json");
  writeFileSync(jobsFile, JSON.stringify(jobs));
  await run(process.execPath, [join(ROOT, "test/infra/run-probe.mjs"), probeBundle, jobsFile, resultFile], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(readFileSync(resultFile, "utf8")) as ProbeResult[];
}

/** Bundled and unbundled side by side, labelled. */
async function bothWays(jobs: readonly (readonly [string, ProbeJob])[]) {
  const inBundle = await bundled(jobs.map(([, j]) => j));
  const out: { label: string; bundled: ProbeResult; unbundled: ProbeResult }[] = [];
  for (const [i, [label, job]] of jobs.entries()) {
    const b = inBundle[i];
    if (!b) throw new Error(`no bundled result for ${label}`);
    out.push({ label, bundled: b, unbundled: await probe(job) });
  }
  return out;
}

const b64 = (raw: Buffer | string) => Buffer.from(raw).toString("base64");
const prove = (raw: Buffer | string, zone: Zone, minRsaKeyBits?: number, now = NOW): ProbeJob => ({
  kind: "prove",
  raw: b64(raw),
  zone,
  now,
  ...(minRsaKeyBits ? { minRsaKeyBits } : {}),
});
/** Just after TEST_SIGN_TIME, when mail signed with the test keys verifies. */
const SIGNED_NOW = "2026-11-29T12:00:00.000Z";
const fixture = (path: string) => readFileSync(join(FIXTURES, path));
const zoneAt = (path: string) => JSON.parse(readFileSync(join(FIXTURES, path), "utf8")) as Zone;

function* walk(root: string): Generator<string> {
  for (const name of readdirSync(root).sort()) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** Every DKIM corpus message the conformance tests use, with its zone (test/unit/gate/conformance-*.test.ts). */
async function dkimCorpora(): Promise<[string, ProbeJob][]> {
  const jobs: [string, ProbeJob][] = [];
  const mailDkim = zoneAt("mail-dkim/fake-dns.json");
  for (const file of readdirSync(join(FIXTURES, "mail-dkim/corpus")).sort())
    jobs.push([`mail-dkim/${file}`, prove(fixture(`mail-dkim/corpus/${file}`), mailDkim)]);
  const vectors = JSON.parse(readFileSync(join(FIXTURES, "dkimpy/vectors.json"), "utf8")) as {
    file: string;
    dns: unknown;
  }[];
  for (const v of vectors) {
    jobs.push([`dkimpy/${v.file}`, prove(fixture(`dkimpy/${v.file}`), zoneSchema.parse(v.dns))]);
    jobs.push([`dkimpy/${v.file} @2048`, prove(fixture(`dkimpy/${v.file}`), zoneSchema.parse(v.dns), 2048)]);
  }
  const authheaders = zoneAt("authheaders/dns.json");
  for (const file of readdirSync(join(FIXTURES, "authheaders")).filter((f) => f.startsWith("test")))
    jobs.push([`authheaders/${file}`, prove(fixture(`authheaders/${file}`), authheaders)]);
  const rfc8463 = zoneAt("mailauth/rfc8463-dns.json");
  const { "brisbane._domainkey.football.example.com": _ed25519, ...rsaOnly } = rfc8463;
  jobs.push(["mailauth/rfc8463-signed.eml", prove(fixture("mailauth/rfc8463-signed.eml"), rfc8463)]);
  jobs.push(["mailauth/rfc8463-signed.eml rsa only", prove(fixture("mailauth/rfc8463-signed.eml"), rsaOnly)]);
  jobs.push(["mailauth/rfc8463-signed.eml no keys", prove(fixture("mailauth/rfc8463-signed.eml"), {})]);
  for (const file of ["message2-duplicate-subject.eml", "message4-duplicate-subject.eml"])
    jobs.push([`mailauth/${file}`, prove(fixture(`mailauth/${file}`), {})]);
  const opendkimKey = readFileSync(join(FIXTURES, "opendkim/testkey.private"), "utf8");
  const opendkimZone: Zone = Object.fromEntries(
    readFileSync(join(FIXTURES, "opendkim/pubkeys"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => {
        const [, name = "", value = ""] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
        return [name, { TXT: [[value]] }];
      }),
  );
  for (const selector of ["test", "revoked", "report", "nosuch"]) {
    const raw = await signMessage(buildMessage({ from: "Test <user@example.com>" }), {
      domain: "example.com",
      selector,
      privateKeyPem: opendkimKey,
      signTime: new Date("2026-05-31T00:00:00Z"),
    });
    jobs.push([`opendkim s=${selector}`, prove(raw, opendkimZone)]);
  }
  return jobs;
}

/** A multipart signed mail whose top-level Content-Type parameters are charset-encoded (RFC 2231 / RFC 2047). */
function charsetEncodedContentType(parameters: string): string {
  return buildMessage({
    from: "Alice <alice@example.com>",
    headers: ["MIME-Version: 1.0", `Content-Type: multipart/mixed; ${parameters}`],
    body: "--b1\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b1--\r\n",
  });
}

describe("the verify bundle (infra/bundling.ts VERIFY_STUBS)", () => {
  it("holds none of the stubbed code, and only the importers infra/bundling.ts names reach a stub", () => {
    // What the bundle holds: the modules with bytes in the output. A module a front door re-exports but the
    // function never uses is parsed and then dropped ("sideEffects": false in package.json), so it ships nothing
    // and calls no stub; the importers below are those that ship.
    const shipped = new Set(
      Object.values(handlerMeta.outputs).flatMap((o) =>
        Object.entries(o.inputs)
          .filter(([, i]) => i.bytesInOutput > 0)
          .map(([p]) => p),
      ),
    );
    const inputs = Object.keys(handlerMeta.inputs).filter((p) => shipped.has(p));
    const real = inputs.filter((p) =>
      /node_modules\/(joi|@hapi\/[^/]+|iconv-lite|encoding-japanese|dom-serializer|@aws-sdk\/(credential-provider-(?!env\/)[^/]+|nested-clients|token-providers)|@smithy\/credential-provider-imds|@smithy\/core\/dist-es\/submodules\/event-streams)\/|libmime\/lib\/mimetypes\.js$|mailauth\/lib\/dkim\/dkim-signer\.js$/.test(
        p,
      ),
    );
    expect(real).toEqual([]);
    const importersOf = (stub: string) =>
      Object.entries(handlerMeta.inputs)
        .filter(([path]) => shipped.has(path))
        .filter(([, input]) => input.imports.some((i) => i.path.endsWith(relative(process.cwd(), stub))))
        .map(([path]) => path.replace(/^.*node_modules\//, ""))
        .sort();
    // Each stub reasons about these callers only (infra/bundling.ts): a new importer needs its own proof.
    const { packages, files } = VERIFY_STUBS;
    expect(importersOf(packages.joi ?? "")).toEqual(["mailauth/lib/tools.js"]);
    expect(importersOf(packages["iconv-lite"] ?? "")).toEqual(["libmime/lib/charset.js"]);
    expect(importersOf(packages["encoding-japanese"] ?? "")).toEqual(["libmime/lib/charset.js"]);
    expect(importersOf(packages["dom-serializer"] ?? "")).toEqual([
      "domutils/lib/stringify.js",
      "html-to-text/lib/html-to-text.cjs",
    ]);
    expect(importersOf(packages["@aws-sdk/credential-provider-node"] ?? "")).toEqual([
      "@aws-sdk/client-dynamodb/dist-es/runtimeConfig.js",
      "@aws-sdk/client-s3/dist-es/runtimeConfig.js",
      "@aws-sdk/client-sqs/dist-es/runtimeConfig.js",
    ]);
    expect(importersOf(packages["@smithy/core/event-streams"] ?? "")).toEqual([
      "@aws-sdk/client-s3/dist-es/S3Client.js",
      "@aws-sdk/client-s3/dist-es/runtimeConfig.js",
      "@smithy/core/dist-es/submodules/protocols/HttpProtocol.js",
    ]);
    for (const f of files) expect(importersOf(f.stub), f.request).toEqual([f.importer]);
  });

  it(`stays within ${(MAX_VERIFY_BUNDLE_BYTES / 1e6).toFixed(2)} MB (cold start; bench/bundle.ts measures its cold start)`, () => {
    expect(handlerBytes).toBeLessThanOrEqual(MAX_VERIFY_BUNDLE_BYTES);
  });

  it("proves the sender of every DKIM corpus message exactly as unbundled, mailauth's results included, calling no stub", async () => {
    const jobs = await dkimCorpora();
    expect(jobs.length).toBeGreaterThan(100);
    const results = await bothWays(jobs);
    for (const r of results) {
      expect(r.bundled.stubCalls, r.label).toEqual([]);
      expect(r.bundled.result, r.label).toEqual(r.unbundled.result);
    }
    // the corpora do reach the DKIM verifier, accepted and refused
    const verdicts = results.map((r) => (r.bundled.result as { proof: { ok: boolean } }).proof.ok);
    expect(verdicts.filter((ok) => ok).length).toBeGreaterThan(5);
    expect(verdicts.filter((ok) => !ok).length).toBeGreaterThan(50);
  });

  it("parses the MIME corpus and reads its fresh text exactly as unbundled, calling no stub", async () => {
    const root = join(FIXTURES, "mime");
    const files = [...walk(root)].filter(
      (p) => !/\/(README|CORPUS-README|LICENSE|COPYRIGHT)[^/]*$|\.tsv$/.test(p),
    );
    expect(files.length).toBe(113);
    const results = await bothWays(
      files.map((p) => [relative(root, p), { kind: "parse", raw: b64(readFileSync(p)) }] as const),
    );
    for (const r of results) {
      expect(r.bundled.stubCalls, r.label).toEqual([]);
      expect(r.bundled.result, r.label).toEqual(r.unbundled.result);
    }
  });

  it("reads the fresh text of the reply corpora, HTML included, exactly as unbundled, calling no stub", async () => {
    const jobs: [string, ProbeJob][] = [];
    for (const corpus of ["replies", "approval-replies"]) {
      for (const path of walk(join(FIXTURES, corpus))) {
        const label = relative(FIXTURES, path);
        const content = readFileSync(path);
        if (path.endsWith(".eml")) jobs.push([label, { kind: "parse", raw: b64(content) }]);
        else if (path.endsWith(".html"))
          jobs.push([label, { kind: "fresh", text: null, html: content.toString("utf8") }]);
        else if (path.endsWith(".txt") && !/LICENSE/.test(path))
          jobs.push([label, { kind: "fresh", text: content.toString("utf8"), html: null }]);
        else if (path.endsWith(".json") && corpus === "approval-replies") {
          const reply = JSON.parse(content.toString("utf8")) as { format: string; body: string };
          const html = reply.format === "html";
          jobs.push([
            label,
            { kind: "fresh", text: html ? null : reply.body, html: html ? reply.body : null },
          ]);
        }
      }
    }
    const results = await bothWays(jobs);
    const html = results.filter((r) => (r.unbundled.result as { source?: string }).source === "html");
    expect(html.length).toBeGreaterThan(5);
    for (const r of results) {
      expect(r.bundled.stubCalls, r.label).toEqual([]);
      expect(r.bundled.result, r.label).toEqual(r.unbundled.result);
    }
  });

  it("signed mail of every shape the gate accepts (text, HTML only, attachments) proves and parses as unbundled", async () => {
    const keys = await testKeys();
    const zone = zoneFor(keys, ["example.com"]);
    const shapes = {
      text: buildMessage(),
      html: buildMessage({
        headers: ["MIME-Version: 1.0", "Content-Type: text/html; charset=utf-8"],
        body: "<p>APPROVE 1234</p><blockquote>quoted card</blockquote>\r\n",
      }),
      attachments: buildMessage({
        headers: ["MIME-Version: 1.0", 'Content-Type: multipart/mixed; boundary="b1"'],
        body: [
          "--b1",
          "Content-Type: text/plain; charset=iso-8859-1",
          "Content-Transfer-Encoding: quoted-printable",
          "",
          "caf=E9",
          "--b1",
          'Content-Type: application/octet-stream; name="a.bin"',
          "Content-Transfer-Encoding: base64",
          "",
          Buffer.alloc(3000, 7).toString("base64"),
          "--b1--",
          "",
        ].join("\r\n"),
      }),
    };
    const jobs: [string, ProbeJob][] = [];
    for (const [shape, message] of Object.entries(shapes)) {
      for (const key of ["rsa2048", "ed25519"] as const) {
        const raw = await signWith(keys, key, message, { domain: "example.com" });
        jobs.push([`${shape} ${key}`, prove(raw, zone, undefined, SIGNED_NOW)]);
        jobs.push([`${shape} ${key} parse`, { kind: "parse", raw: b64(raw) }]);
      }
    }
    const results = await bothWays(jobs);
    for (const r of results) {
      expect(r.bundled.stubCalls, r.label).toEqual([]);
      expect(r.bundled.result, r.label).toEqual(r.unbundled.result);
      if (!r.label.endsWith("parse"))
        expect((r.bundled.result as { proof: { ok: boolean } }).proof.ok, r.label).toBe(true);
    }
  });

  it("a charset-encoded top-level Content-Type reaches the iconv/encoding-japanese stubs; libmime swallows them and the proof is unchanged", async () => {
    const keys = await testKeys();
    const zone = zoneFor(keys, ["example.com"]);
    const hostile = {
      // RFC 2231 extended parameters in Latin-1 and ISO-2022-JP, one of them the boundary itself
      rfc2231: `boundary*=iso-8859-1''b1; x*=iso-2022-jp''%1B%24B%24%22%1B%28B`,
      // an RFC 2047 encoded word inside a continued parameter value
      rfc2047: `boundary=b1; x*0="=?koi8-r?B?9MXT1A==?="; x*1="tail"`,
    };
    const jobs: [string, ProbeJob][] = [];
    for (const [name, parameters] of Object.entries(hostile)) {
      const raw = await signWith(keys, "rsa2048", charsetEncodedContentType(parameters), {
        domain: "example.com",
      });
      jobs.push([name, prove(raw, zone, undefined, SIGNED_NOW)]);
    }
    const results = await bothWays(jobs);
    // What each stub was asked: libmime tries encoding-japanese for ISO-2022-JP, then iconv-lite.
    expect(results.map((r) => r.bundled.stubCalls)).toEqual([
      [
        // the boundary, boundary*=iso-8859-1'' (libmime names ISO-8859-1 windows-1252)
        'iconv-lite.decode("windows-1252")',
        'encoding-japanese.convert(from "ISO-2022-JP")',
        'iconv-lite.decode("ISO-2022-JP")',
      ],
      ['iconv-lite.decode("KOI8-R")'],
    ]);
    type Proved = { proof: unknown; dkim: { results: Record<string, unknown>[] } };
    for (const r of results) {
      const b = r.bundled.result as Proved;
      const u = r.unbundled.result as Proved;
      expect(b.proof, r.label).toEqual(u.proof);
      expect((b.proof as { ok: boolean }).ok, r.label).toBe(true);
      // Only mailauth's informational mimeStructureStart (the boundary's offset) may differ: sender proof never
      // reads it (shared/gate/dkim-checks.ts).
      const withoutOffset = (p: Proved) =>
        p.dkim.results.map(({ mimeStructureStart: _offset, ...rest }) => rest);
      expect(withoutOffset(b), r.label).toEqual(withoutOffset(u));
    }
  });
});
