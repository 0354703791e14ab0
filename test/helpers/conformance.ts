// Runs a corpus message through sender proof with a fixed clock and the default policy.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { proveSender, type SenderProof } from "../../shared/gate/sender-proof.ts";
import { type Zone, zoneResolver } from "../../shared/runtime/zone-resolver.ts";

export const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

export function readFixture(path: string): Buffer {
  return readFileSync(`${FIXTURES}${path}`);
}

export function readZone(path: string): Zone {
  return JSON.parse(readFileSync(`${FIXTURES}${path}`, "utf8")) as Zone;
}

/** "accept" or the refusal code, under the default policy (1024-bit floor, ASCII local parts). */
export async function verdictOf(raw: Buffer, zone: Zone, now: Date, minRsaKeyBits = 1024): Promise<string> {
  const proof = await proveSenderWith(raw, zone, now, minRsaKeyBits);
  return proof.ok ? "accept" : proof.reason;
}

export function proveSenderWith(
  raw: Buffer,
  zone: Zone,
  now: Date,
  minRsaKeyBits = 1024,
): Promise<SenderProof> {
  return proveSender(raw, {
    resolver: zoneResolver(zone),
    now,
    minRsaKeyBits,
    allowNonAsciiLocalParts: false,
  });
}
