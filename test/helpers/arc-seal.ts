// ARC sets (RFC 8617) for tests, sealed with the DKIM test keys by mailauth's own sealer: the shapes a mailing list
// or a forwarding rule puts on mail it passes on.

import { sealMessage } from "mailauth/lib/arc/index.js";
import { SELECTORS, TEST_SIGN_TIME, type TestKeys } from "./dkim-test-keys.ts";

export interface SealOptions {
  /** The sealer's domain (its key is published under the test selectors by `zoneFor`). */
  readonly domain: string;
  /** What the sealer recorded, after `i=N;`: the authserv-id and its results. */
  readonly authResults: string;
  readonly cv?: "none" | "pass" | "fail";
  readonly key?: keyof TestKeys;
  /** Fields the ARC-Message-Signature signs (default: mailauth's list, From included). */
  readonly headerList?: string[];
}

/** `raw` with one more ARC set on top, sealed by `opts.domain`. */
export async function seal(keys: TestKeys, raw: Buffer | string, opts: SealOptions): Promise<Buffer> {
  const key = opts.key ?? "rsa2048";
  const message = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
  const set = await sealMessage(message, {
    signingDomain: opts.domain,
    selector: SELECTORS[key],
    privateKey: keys[key].privateKeyPem,
    authResults: opts.authResults,
    signTime: TEST_SIGN_TIME,
    ...(opts.cv !== undefined ? { cv: opts.cv } : {}),
    ...(opts.headerList !== undefined ? { headerList: opts.headerList } : {}),
  });
  if (set.length === 0) throw new TypeError(`mailauth did not seal for ${opts.domain}`);
  return Buffer.concat([set, message]);
}

/**
 * What a Mailman 3 or Google Groups list does to a signed mail before it seals it: tags the Subject and appends a
 * footer (so the author's body hash and header hash both break), keeping From.
 */
export function asListRewrites(signed: Buffer, listName = "team"): Buffer {
  const text = signed.toString("latin1").replace(/^Subject: /m, `Subject: [${listName}] `);
  return Buffer.from(
    `${text}_______________________________________________\r\n${listName} mailing list\r\n`,
    "latin1",
  );
}
