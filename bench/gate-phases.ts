/**
 * Where the inbound gate's time goes on a small mail, beside the bare parse and DKIM check it must do anyway:
 * each phase timed in CPU time (process.cpuUsage: a busy, shared machine slows the wall clock, not the work),
 * interleaved, median of 21 rounds of 50 calls.
 *
 *   npx tsx bench/gate-phases.ts [bytes]      (default 2048)
 *
 * gate = routing + loop headers + proveSender + parseMail + decisions; bare = postal-mime + mailauth dkimVerify.
 * proveSender = our strict header read, From parse, tag choice, boundedVerify (mailauth's verifier on the chosen
 * signatures) and the policy on its result (dkim-checks.ts, signed recipients).
 */
import { cpuUsage } from "node:process";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import PostalMime from "postal-mime";
import { parseConfig } from "../shared/config/load.ts";
import { boundedDkimVerify } from "../shared/gate/dkim-bounded-verify.ts";
import { gateMessage } from "../shared/gate/gate.ts";
import { readHeaderBlock } from "../shared/gate/header-block.ts";
import { proveSender } from "../shared/gate/sender-proof.ts";
import { generateDkimKey, signMessage, zoneRecordFor } from "../shared/mail/dkim-sign.ts";
import { parseMail } from "../shared/mail/parse.ts";
import { zoneResolver } from "../shared/runtime/zone-resolver.ts";

const AGENT = "helpdesk@agents.example.net";
const size = Number(process.argv[2] ?? 2048);
const key = await generateDkimKey({ bits: 2048 });
const resolver = zoneResolver(zoneRecordFor("s1", "example.com", key.dnsTxtValue));
const config = parseConfig({
  domains: ["agents.example.net"],
  models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
});
const agent = {
  address: AGENT,
  name: "Help",
  model: "demo",
  instructions: "",
  acceptAutoSubmitted: false,
  acceptListMail: false,
  acceptBcc: false,
  enabled: true,
};
const admin = {
  agents: [agent],
  accessRules: [],
  outboundRules: [],
  toolkits: [],
  responsibilities: [],
  approvers: [],
} as unknown as Parameters<typeof gateMessage>[0]["admin"];
const now = new Date("2026-11-29T12:00:00Z");
const line = "The quarterly numbers are attached and look fine to me.\r\n";
const raw = await signMessage(
  [
    "From: Alice <alice@example.com>",
    `To: ${AGENT}`,
    "Subject: quarterly numbers",
    "Date: Sun, 29 Nov 2026 12:00:00 +0000",
    "Message-ID: <bench@example.com>",
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    line.repeat(Math.ceil(size / line.length)),
  ].join("\r\n"),
  {
    domain: "example.com",
    selector: "s1",
    privateKeyPem: key.privateKeyPem,
    signTime: new Date("2026-11-29T11:59:00Z"),
  },
);
const { senderProof } = config;
const proof = {
  resolver,
  now,
  minRsaKeyBits: senderProof.minRsaKeyBits,
  allowNonAsciiLocalParts: senderProof.allowNonAsciiLocalParts,
  maxSignatures: senderProof.maxSignatures,
  keyLookupTimeoutMs: senderProof.keyLookupTimeoutMs,
};
const envelope = { sesMessageId: "b", recipients: [AGENT], mailFrom: "alice@example.com" };
const phases: Record<string, () => Promise<unknown>> = {
  gate: () => gateMessage({ raw, envelope, config, admin, resolver, now, sentMail: async () => [] }),
  bare: async () => {
    await PostalMime.parse(raw);
    await dkimVerify(raw, { resolver, curTime: now });
  },
  proveSender: () => proveSender(raw, proof),
  boundedVerify: () =>
    boundedDkimVerify(raw, { resolver, curTime: now, strict: true, minBitLength: 1 }, new Set([0])),
  dkimVerify: () => dkimVerify(raw, { resolver, curTime: now }),
  parseMail: () => parseMail(raw, config.attachments),
  postalMime: () => PostalMime.parse(raw),
  headerBlock: async () => readHeaderBlock(raw),
};
const cpuMs = () => {
  const u = cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
for (let i = 0; i < 300; i++) for (const f of Object.values(phases)) await f();
const seen: Record<string, number[]> = {};
for (let r = 0; r < 21; r++)
  for (const [name, f] of Object.entries(phases)) {
    const t = cpuMs();
    for (let i = 0; i < 50; i++) await f();
    const samples = seen[name] ?? [];
    samples.push((cpuMs() - t) / 50);
    seen[name] = samples;
  }
const m = Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, median(v) * 1000]));
const us = (k: string) => m[k] ?? Number.NaN;
console.log(`${raw.byteLength}-byte signed mail, CPU µs per call (median of 21 × 50, interleaved)`);
for (const k of Object.keys(phases)) console.log(`  ${k.padEnd(14)} ${us(k).toFixed(0).padStart(6)}`);
console.log(
  `  gate / bare ${(us("gate") / us("bare")).toFixed(2)}x: +${(us("gate") - us("bare")).toFixed(0)} µs = proveSender's own checks ${(us("proveSender") - us("boundedVerify")).toFixed(0)}, boundedVerify vs dkimVerify ${(us("boundedVerify") - us("dkimVerify")).toFixed(0)}, parseMail vs postal-mime ${(us("parseMail") - us("postalMime")).toFixed(0)}, the gate's own ${(us("gate") - us("proveSender") - us("parseMail")).toFixed(0)}`,
);
