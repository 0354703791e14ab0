// DKIM test keys, generated once per test file (RSA 2048 keygen is slow) and a zone publishing
// them. Each test file that imports this gets its own module instance under vitest's forks pool.

import {
  type DkimKey,
  generateDkimKey,
  type SignOptions,
  signMessage,
  zoneRecordFor,
} from "../../shared/mail/dkim-sign.ts";
import { type Zone, type ZoneResolver, zoneResolver } from "../../shared/runtime/zone-resolver.ts";

export type TestKeys = { rsa2048: DkimKey; rsa1024: DkimKey; rsa512: DkimKey; ed25519: DkimKey };

let cached: Promise<TestKeys> | undefined;

export function testKeys(): Promise<TestKeys> {
  cached ??= (async () => {
    const [rsa2048, rsa1024, rsa512, ed25519] = await Promise.all([
      generateDkimKey({ bits: 2048 }),
      generateDkimKey({ bits: 1024 }),
      generateDkimKey({ bits: 512 }),
      generateDkimKey({ algorithm: "ed25519" }),
    ]);
    return { rsa2048, rsa1024, rsa512, ed25519 };
  })();
  return cached;
}

/** Selectors under which each test key is published, per domain. */
export const SELECTORS = { rsa2048: "r2048", rsa1024: "r1024", rsa512: "r512", ed25519: "ed" } as const;

/** A zone publishing every test key for each of `domains` (A-label form). */
export function zoneFor(keys: TestKeys, domains: string[]): Zone {
  const zone: Zone = {};
  for (const domain of domains) {
    for (const [name, selector] of Object.entries(SELECTORS)) {
      Object.assign(zone, zoneRecordFor(selector, domain, keys[name as keyof TestKeys].dnsTxtValue));
    }
  }
  return zone;
}

/**
 * When test mail is signed unless a test says otherwise: just before the fixed clocks the gate tests verify at
 * (a t= after the verifier's clock is refused as dkim-future-timestamp once it is more than 15 minutes ahead).
 */
export const TEST_SIGN_TIME = new Date("2026-11-29T11:55:00Z");

/** Signs with a test key published under its selector in `zoneFor`. */
export function signWith(
  keys: TestKeys,
  key: keyof TestKeys,
  raw: Buffer | string,
  opts: Omit<SignOptions, "selector" | "privateKeyPem">,
): Promise<Buffer> {
  return signMessage(raw, {
    signTime: TEST_SIGN_TIME,
    ...opts,
    selector: SELECTORS[key],
    privateKeyPem: keys[key].privateKeyPem,
  });
}

export function resolverFor(zone: Zone): ZoneResolver {
  return zoneResolver(zone);
}

export type MessageParts = {
  from?: string | string[];
  /** The To field's value (default helpdesk@agents.example.net): the gate accepts only mail signed for the agent. */
  to?: string;
  headers?: string[];
  subject?: string;
  body?: string;
  /** The Message-ID (default <test-1@example.com>). */
  messageId?: string;
};

/** A small CRLF message; `from` may be several From fields or none ([]). */
export function buildMessage(parts: MessageParts = {}): string {
  const froms = parts.from === undefined ? ["Alice <alice@example.com>"] : [parts.from].flat();
  const lines = [
    ...froms.map((f) => `From: ${f}`),
    `To: ${parts.to ?? "helpdesk@agents.example.net"}`,
    `Subject: ${parts.subject ?? "Quarterly numbers"}`,
    "Date: Sun, 29 Nov 2026 12:00:00 +0000",
    `Message-ID: ${parts.messageId ?? "<test-1@example.com>"}`,
    ...(parts.headers ?? []),
  ];
  return `${lines.join("\r\n")}\r\n\r\n${parts.body ?? "Hello,\r\nthe numbers are attached.\r\n"}`;
}
