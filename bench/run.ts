/**
 * `npm run bench`: inbound gate throughput against the bare cost of what it must do anyway (postal-mime parse +
 * mailauth DKIM verify) on the same signed messages, 2 KB to 10 MB, measured side by side in one process so the
 * ratio holds on a shared, noisy machine. Prints messages/s, MB/s and the gate / bare ratio per size; then the
 * signature-flood rows; then verify's peak memory on ~10 MB mails of each shape (bench/verify-memory.ts), each in
 * a fresh process, against a 10 KB mail in the same process and against postal-mime's own parse of the same mail.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import PostalMime from "postal-mime";
import { agentItem } from "../shared/admin/schema.ts";
import { createContextBuilder } from "../shared/agent/loop/context-builder.ts";
import { parseConfig } from "../shared/config/load.ts";
import { gateMessage } from "../shared/gate/gate.ts";
import { generateDkimKey, signMessage, zoneRecordFor } from "../shared/mail/dkim-sign.ts";
import type { MessageRecord } from "../shared/ports/messages.ts";
import { zoneResolver } from "../shared/runtime/zone-resolver.ts";
import { printTargets } from "./targets.ts";

const SIZES = [2 * 1024, 64 * 1024, 1024 * 1024, 10 * 1024 * 1024];
const AGENT = "helpdesk@agents.example.net";

function message(size: number): string {
  const head = [
    "From: Alice <alice@example.com>",
    `To: ${AGENT}`,
    "Subject: quarterly numbers",
    "Date: Sun, 29 Nov 2026 12:00:00 +0000",
    "Message-ID: <bench@example.com>",
    "MIME-Version: 1.0",
  ];
  if (size <= 64 * 1024) {
    const line = "The quarterly numbers are attached and look fine to me.\r\n";
    return `${head.join("\r\n")}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${line.repeat(Math.ceil(size / line.length))}`;
  }
  // Large mail is an attachment: base64 in 76-character lines, as real clients send it.
  const b64 = Buffer.alloc(Math.floor(size * 0.74), 7)
    .toString("base64")
    .replace(/.{76}/g, "$&\r\n");
  return [
    ...head,
    'Content-Type: multipart/mixed; boundary="b"',
    "",
    "--b",
    "Content-Type: text/plain",
    "",
    "See attached.",
    "--b",
    'Content-Type: application/octet-stream; name="data.bin"',
    "Content-Transfer-Encoding: base64",
    'Content-Disposition: attachment; filename="data.bin"',
    "",
    b64,
    "--b--",
    "",
  ].join("\r\n");
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

const key = await generateDkimKey({ bits: 2048 });
const resolver = zoneResolver(zoneRecordFor("s1", "example.com", key.dnsTxtValue));
const config = parseConfig({
  domains: ["agents.example.net"],
  models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
  attachments: {
    maxMessageBytes: 20 * 1024 * 1024,
    maxAttachmentBytes: 20 * 1024 * 1024,
    maxTotalAttachmentBytes: 20 * 1024 * 1024,
  },
});
const admin = {
  agents: [
    {
      address: AGENT,
      name: "Help",
      model: "demo",
      instructions: "",
      acceptAutoSubmitted: false,
      acceptListMail: false,
      acceptBcc: false,
      requireSignedAddressing: false,
      enabled: true,
    },
  ],
  accessRules: [],
  outboundRules: [],
  toolkits: [],
  responsibilities: [],
  approvers: [],
  webhooks: [],
  mcpServers: [],
};
const now = new Date("2026-11-29T12:00:00Z");
const signTime = new Date("2026-11-29T11:59:00Z");

async function gate(raw: Buffer): Promise<void> {
  const r = await gateMessage({
    raw,
    envelope: { sesMessageId: "b", recipients: [AGENT], mailFrom: "alice@example.com" },
    config,
    admin,
    resolver,
    now,
    sentMail: async () => [],
  });
  if (r.decisions[0]?.verdict !== "accept")
    throw new Error(`bench message not accepted: ${r.decisions[0]?.reason}`);
}
async function bare(raw: Buffer): Promise<void> {
  await PostalMime.parse(raw);
  const v = await dkimVerify(raw, { resolver, curTime: now });
  if (v.results[0]?.status.result !== "pass") throw new Error("bench signature did not pass");
}

console.log("size      gate msg/s   gate MB/s   bare msg/s   bare MB/s   gate/bare time");
for (const size of SIZES) {
  const raw = await signMessage(message(size), {
    domain: "example.com",
    selector: "s1",
    privateKeyPem: key.privateKeyPem,
    signTime,
  });
  const rounds = size >= 1024 * 1024 ? 5 : 9;
  const inner = size >= 1024 * 1024 ? 1 : size >= 64 * 1024 ? 10 : 50;
  await gate(raw);
  await bare(raw);
  const g: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Interleaved, so both see the same machine load.
    let t = performance.now();
    for (let i = 0; i < inner; i++) await gate(raw);
    g.push((performance.now() - t) / inner);
    t = performance.now();
    for (let i = 0; i < inner; i++) await bare(raw);
    b.push((performance.now() - t) / inner);
  }
  const gm = median(g);
  const bm = median(b);
  const mb = raw.byteLength / (1024 * 1024);
  const label = size >= 1024 * 1024 ? `${size / (1024 * 1024)} MB` : `${size / 1024} KB`;
  console.log(
    `${label.padEnd(9)} ${(1000 / gm).toFixed(1).padStart(10)} ${((mb * 1000) / gm).toFixed(2).padStart(11)} ${(1000 / bm).toFixed(1).padStart(12)} ${((mb * 1000) / bm).toFixed(2).padStart(11)} ${(gm / bm).toFixed(2).padStart(15)}x`,
  );
}

// G2's bounded cost: a signature flood is judged in about the time of the same mail with one signature. Rows are
// the flood's gate time against the one-signature mail's, measured interleaved in this process.
const FLOOD_BODY = 2 * 1024 * 1024;
function floodFields(count: number, tag: (i: number) => string): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++)
    out.push(
      `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=f${i}; ${tag(i)}h=from:to; bh=${Buffer.from(`b${i}`).toString("base64")}; b=${Buffer.from(`s${i}`).toString("base64")}`,
    );
  return `${out.join("\r\n")}\r\n`;
}
const wide = parseConfig({
  domains: ["agents.example.net"],
  models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
  attachments: { maxHeaderBytes: 4 * 1024 * 1024 },
});
async function judge(raw: Buffer, cfg: typeof config, expect: string): Promise<void> {
  const r = await gateMessage({
    raw,
    envelope: { sesMessageId: "b", recipients: [AGENT], mailFrom: "alice@example.com" },
    config: cfg,
    admin,
    resolver,
    now,
    sentMail: async () => [],
  });
  if (r.decisions[0]?.reason !== expect)
    throw new Error(`flood row: ${r.decisions[0]?.reason}, expected ${expect}`);
}
const one = await signMessage(
  message(64 * 1024).replace(
    /(\r\n\r\n)[\s\S]*$/,
    `$1${"The numbers look fine.\r\n".repeat(FLOOD_BODY / 24)}`,
  ),
  {
    domain: "example.com",
    selector: "s1",
    privateKeyPem: key.privateKeyPem,
    signTime,
  },
);
// ARC (arc-proof.ts) is read only once the author's signature failed: the same mail, its body changed in transit
const broken = Buffer.concat([one, Buffer.from("-- appended by a list\r\n")]);
const arcTrusting = parseConfig({
  domains: ["agents.example.net"],
  models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
  attachments: { maxHeaderBytes: 4 * 1024 * 1024 },
  senderProof: { trustedArcSealers: ["evil.example"] },
});
function arcSets(count: number, perSet = 1): string {
  const out: string[] = [];
  for (let i = count; i >= 1; i--)
    for (let k = 0; k < perSet; k++)
      out.push(
        `ARC-Seal: i=${i}; a=rsa-sha256; cv=${i === 1 ? "none" : "pass"}; d=evil.example; s=s${i}x${k}; b=AAAA`,
        `ARC-Message-Signature: i=${i}; a=rsa-sha256; c=relaxed/relaxed; d=evil.example; s=m${i}; h=from; bh=AAAA; b=AAAA`,
        `ARC-Authentication-Results: i=${i}; evil.example; dkim=pass header.d=example.com`,
      );
  return `${out.join("\r\n")}\r\n`;
}
const rows: { label: string; raw: Buffer; cfg: typeof config; expect: string }[] = [
  {
    label: "3,000 aligned, own selectors, default header limit",
    raw: Buffer.concat([Buffer.from(floodFields(3000, () => "")), one]),
    cfg: config,
    expect: "headers-too-large",
  },
  {
    label: "3,000 aligned, own selectors, header limit 4 MB, real one on top",
    raw: await signMessage(Buffer.concat([Buffer.from(floodFields(3000, () => "")), one]), {
      domain: "example.com",
      selector: "s1",
      privateKeyPem: key.privateKeyPem,
      signTime,
    }),
    cfg: wide,
    expect: "accepted",
  },
  {
    label: "500 with distinct l=, header limit 4 MB, real one below",
    raw: Buffer.concat([Buffer.from(floodFields(500, (i) => `l=${i + 1}; `)), one]),
    cfg: wide,
    expect: "accepted",
  },
  {
    label: "ARC: 1,000 sets of fields above a broken mail, header limit 4 MB",
    raw: Buffer.concat([Buffer.from(arcSets(1, 1000)), broken]),
    cfg: arcTrusting,
    expect: "arc-too-many-sets",
  },
  {
    label: "ARC: 8 unsealed sets (9 key names) above a broken mail",
    raw: Buffer.concat([Buffer.from(arcSets(8)), broken]),
    cfg: arcTrusting,
    expect: "arc-fail",
  },
];
console.log("");
console.log(
  `signature flood (${FLOOD_BODY / (1024 * 1024)} MB body)                           flood ms   one-sig ms   flood/one`,
);
for (const row of rows) {
  await judge(row.raw, row.cfg, row.expect);
  await judge(one, config, "accepted");
  const f: number[] = [];
  const o: number[] = [];
  for (let r = 0; r < 5; r++) {
    let t = performance.now();
    await judge(row.raw, row.cfg, row.expect);
    f.push(performance.now() - t);
    t = performance.now();
    await judge(one, config, "accepted");
    o.push(performance.now() - t);
  }
  const fm = median(f);
  const om = median(o);
  console.log(
    `${row.label.padEnd(66)} ${fm.toFixed(1).padStart(8)} ${om.toFixed(1).padStart(12)} ${(fm / om).toFixed(2).padStart(10)}x`,
  );
}

// Memory: verify's peak RSS growth on ~9.8 MB mails (the default 10 MiB message limit), one fresh process per row
// so each peak is its own. "postal-mime alone" parses the same mail with postal-mime as shipped, nothing of
// Postern loaded: what the parse costs without shared/mail/postal-mime-pass-through.ts. Hostile shapes are left
// out of that column (3.3 million lines in postal-mime's own decoder would take gigabytes).
const MEMORY_BYTES = 9.8 * 1024 * 1024;
const headLines = (contentType: string[]) =>
  [
    "From: Alice <alice@example.com>",
    `To: ${AGENT}`,
    "Subject: a big one",
    "Date: Sun, 29 Nov 2026 12:00:00 +0000",
    "Message-ID: <memory-bench@example.com>",
    "MIME-Version: 1.0",
    ...contentType,
  ].join("\r\n");
const prose = "The quarterly numbers are attached and look fine to me, thanks for sending them over.\r\n";
const base64Lines = (bytes: number, fill: number) =>
  Buffer.alloc(bytes, fill).toString("base64").replace(/.{76}/g, "$&\r\n");
const shapes: { label: string; body: string; alone: boolean }[] = [
  {
    label: "plain text",
    body: `${headLines(["Content-Type: text/plain; charset=utf-8"])}\r\n\r\n${prose.repeat(Math.ceil(MEMORY_BYTES / prose.length))}`,
    alone: true,
  },
  {
    label: "html",
    body: `${headLines(["Content-Type: text/html; charset=utf-8"])}\r\n\r\n<html><body>\r\n${`<p>${prose.trim()}</p>\r\n`.repeat(Math.ceil(MEMORY_BYTES / (prose.length + 7)))}</body></html>\r\n`,
    alone: true,
  },
  {
    label: "attachments (2 x 3.6 MB, base64)",
    body: [
      headLines(['Content-Type: multipart/mixed; boundary="b"']),
      "",
      "--b",
      "Content-Type: text/plain",
      "",
      "See attached.",
      ...[1, 2].flatMap((i) => [
        "--b",
        `Content-Type: application/octet-stream; name="d${i}.bin"`,
        "Content-Transfer-Encoding: base64",
        `Content-Disposition: attachment; filename="d${i}.bin"`,
        "",
        base64Lines(Math.floor((MEMORY_BYTES * 0.74) / 2), i),
      ]),
      "--b--",
      "",
    ].join("\r\n"),
    alone: true,
  },
  {
    label: "hostile: plain text, 3-byte lines",
    body: `${headLines(["Content-Type: text/plain; charset=utf-8"])}\r\n\r\n${"a\r\n".repeat(Math.floor(MEMORY_BYTES / 3))}`,
    alone: false,
  },
  {
    label: "hostile: html, one line of <b></b>",
    body: `${headLines(["Content-Type: text/html; charset=utf-8"])}\r\n\r\n<p>x${"<b></b>".repeat(Math.floor(MEMORY_BYTES / 7))}</p>\r\n`,
    alone: false,
  },
];
const execFileAsync = promisify(execFile);
const memDir = mkdtempSync(join(tmpdir(), "postern-bench-memory-"));
const zoneFile = join(memDir, "zone.json");
writeFileSync(zoneFile, JSON.stringify(zoneRecordFor("s1", "example.com", key.dnsTxtValue)));
const signedTo = async (file: string, body: string) =>
  writeFileSync(
    join(memDir, file),
    await signMessage(body, {
      domain: "example.com",
      selector: "s1",
      privateKeyPem: key.privateKeyPem,
      signTime,
    }),
  );
await signedTo("small.eml", message(10 * 1024));
const row = async (args: string[]): Promise<{ baseline: number; growth: number }> => {
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", join(import.meta.dirname, "verify-memory.ts"), ...args],
    { cwd: join(import.meta.dirname, ".."), maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(stdout) as { baseline: number; growth: number };
};
const MiB = 1024 * 1024;
console.log("");
console.log(
  `verify peak RSS growth, fresh process per row (Node ${process.versions.node})    mail MB   10 KB mail MB   this mail MB   (this - 10 KB) / mail   postal-mime alone MB`,
);
let worstGrowth = 0;
try {
  for (const [i, shape] of shapes.entries()) {
    const file = `big-${i}.eml`;
    await signedTo(file, shape.body);
    const mailBytes = Buffer.byteLength(shape.body);
    const v = await row(["verify", zoneFile, join(memDir, "small.eml"), join(memDir, file)]);
    worstGrowth = Math.max(worstGrowth, v.growth);
    const alone = shape.alone
      ? (await row(["postal-mime", join(memDir, "small.eml"), join(memDir, file)])).growth
      : null;
    console.log(
      `${shape.label.padEnd(67)} ${(mailBytes / MiB).toFixed(2).padStart(9)} ${(v.baseline / MiB).toFixed(1).padStart(15)} ${(v.growth / MiB).toFixed(1).padStart(14)} ${`${((v.growth - v.baseline) / mailBytes).toFixed(1)}x`.padStart(23)} ${(alone === null ? "-" : (alone / MiB).toFixed(1)).padStart(22)}`,
    );
  }
} finally {
  rmSync(memDir, { recursive: true, force: true });
}

// Round 1's transcript for a ~10 MB plain-text mail, as agent-step builds and saves it (the issue measured it failing
// locally: the body was in it twice, past the emulator's 11 MiB request limit).
const bigBody = "Where is my order? ".repeat(Math.ceil(MEMORY_BYTES / 19)).slice(0, MEMORY_BYTES);
const stored: MessageRecord = {
  agent: "helpdesk@agents.example.net",
  id: "20261130T000000000-00000001",
  direction: "in",
  threadId: "t-1",
  headerMessageId: "big@customer.example",
  inReplyTo: null,
  references: [],
  from: "carol@customer.example",
  to: ["helpdesk@agents.example.net"],
  cc: [],
  subject: "A long mail",
  at: "2026-11-30T00:00:00.000Z",
  bodyKey: "mail/helpdesk@agents.example.net/20261130T000000000-00000001/body.txt",
  hasHtmlOnly: false,
  attachments: [],
  hop: 0,
};
const start = await createContextBuilder({
  getMessage: async () => stored,
  listThread: async () => [stored],
  getText: async () => bigBody,
  responsibility: () => null,
}).initial(
  {
    runId: "run-bench",
    agent: stored.agent,
    kind: "reply",
    state: "running",
    correlationId: "c",
    createdAt: stored.at,
    trigger: {
      kind: "message",
      message: {
        id: stored.id,
        threadId: stored.threadId,
        subject: stored.subject,
        headerMessageId: "big@x",
      },
    },
    sender: { address: stored.from, routingKey: stored.from, displayName: "Carol" },
  },
  agentItem.parse({ address: stored.agent, name: "Help Desk", model: "demo" }),
);
const transcriptBytes = Buffer.byteLength(JSON.stringify({ ...start, lastRound: 0 }));
console.log(
  `\nround 1 transcript for a ${(bigBody.length / 1e6).toFixed(1)} MB plain-text body: ${(transcriptBytes / 1024).toFixed(0)} KB`,
);
printTargets([
  {
    what: "verify peak RSS growth on a ~10 MB mail, worst shape",
    before: "+360 MB",
    now: `+${(worstGrowth / MiB).toFixed(0)} MB`,
    target: "≤ +100 MB",
    met: worstGrowth <= 100 * MiB,
  },
  {
    what: "transcript for a 10 MB mail",
    before: "fails",
    now: `${(transcriptBytes / 1024).toFixed(0)} KB`,
    target: "≤ 1 MB",
    met: transcriptBytes <= 1024 * 1024,
  },
]);
