import { readFileSync, readdirSync } from "node:fs";
import { zoneResolver } from "/work/main/shared/gate/zone-resolver.ts";
import { proveSender } from "/work/main/shared/gate/sender-proof.ts";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
const F = "/work/main/test/fixtures";
const now = new Date("2026-01-01T00:00:00Z");
const run = async (label: string, raw: Buffer, zone: any) => {
  const r = await proveSender(raw, { resolver: zoneResolver(zone), now, minRsaKeyBits: 1024, allowNonAsciiLocalParts: false });
  const v = await dkimVerify(raw, { resolver: zoneResolver(zone), curTime: now, strict: true, minBitLength: 1 });
  console.log(label.padEnd(40), r.ok ? "ACCEPT " + r.address : r.reason.padEnd(22) + " " + r.address, "|", v.results.map(x => `${x.status.result}:${x.signingDomain}:${x.algo}:${x.modulusLength}:${x.status.comment ?? ""}`).join(" ; "));
};
await run("rfc8463", readFileSync(`${F}/mailauth/rfc8463-signed.eml`), JSON.parse(readFileSync(`${F}/mailauth/rfc8463-dns.json`, "utf8")));
for (const f of ["message2-duplicate-subject.eml","message4-duplicate-subject.eml"]) await run(f, readFileSync(`${F}/mailauth/${f}`), {});
for (const v of JSON.parse(readFileSync(`${F}/dkimpy/vectors.json`, "utf8"))) await run(v.file, readFileSync(`${F}/dkimpy/${v.file}`), v.dns);
const ah = JSON.parse(readFileSync(`${F}/authheaders/dns.json`, "utf8"));
for (const f of ["test.message_multi","test.message_multi2","test.nofrom.message","testcomma.message","test.message_signed","test.message"]) await run(f, readFileSync(`${F}/authheaders/${f}`), ah);
const md = JSON.parse(readFileSync(`${F}/mail-dkim/fake-dns.json`, "utf8"));
for (const f of readdirSync(`${F}/mail-dkim/corpus`).sort()) await run(f, readFileSync(`${F}/mail-dkim/corpus/${f}`), md);
