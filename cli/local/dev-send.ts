import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dkimSign } from "mailauth/lib/dkim/sign.js";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import { type DevKey, type DevKeyRefusal, ensureDevKey } from "./dev-keys.ts";
import { DEFAULT_SMTP_PORT } from "./smtp-intake.ts";

/**
 * `postern dev send`: compose (or take) a message, DKIM-sign it with the dev key of its From domain and hand it
 * to the local SMTP intake, so a newcomer sees a mail that passes sender proof (G2) travel the whole pipeline.
 */
export interface DevSendOptions {
  /** Where the dev keys and zone file live (`.postern`). */
  readonly dir: string;
  readonly zoneFile: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly subject?: string;
  readonly body?: string;
  /** A ready raw message (an .eml file's bytes) to sign and send instead of composing one. */
  readonly raw?: Uint8Array;
  readonly selector?: string;
  readonly host?: string;
  readonly port?: number;
  readonly clock?: () => Date;
}

export type DevSendResult =
  | {
      readonly ok: true;
      /** The Message-ID header of the sent mail (composed mail only). */
      readonly messageId: string | undefined;
      /** The intake's id: the S3 object `inbound/<sesMessageId>`. */
      readonly sesMessageId: string | undefined;
      readonly keyCreated: boolean;
      readonly key: DevKey;
      readonly raw: Buffer;
      /** Where the signed mail was saved (`<dir>/sent/<id>.eml`): what `postern check` can be given. */
      readonly savedAs: string;
    }
  | DevKeyRefusal
  | { readonly ok: false; readonly reason: "invalid-from" };

export async function composeDevMail(o: {
  from: string;
  to: readonly string[];
  subject?: string;
  body?: string;
  date?: Date;
}): Promise<Buffer> {
  const composer = new MailComposer({
    from: o.from,
    to: [...o.to],
    subject: o.subject ?? "Hello from postern dev send",
    text: o.body ?? "Hello! This is a test message sent with `postern dev send`.",
    date: o.date ?? new Date(),
  });
  return composer.compile().build();
}

/** Prepend a DKIM-Signature (relaxed/relaxed, rsa-sha256, From/To/Subject/Date/Message-ID signed). */
export async function signWithDevKey(raw: Uint8Array, key: DevKey, signTime?: Date): Promise<Buffer> {
  const input = Buffer.from(raw);
  const signer = { signingDomain: key.domain, selector: key.selector, privateKey: key.privateKeyPem };
  // mailauth signs nothing unless the key sits inside signatureData (TOOLCHAIN.md); its types want both.
  const result = await dkimSign(input, {
    ...signer,
    canonicalization: "relaxed/relaxed",
    signatureData: [signer],
    ...(signTime ? { signTime } : {}),
  });
  if (result.errors?.length || !result.signatures) {
    throw new Error(`DKIM signing failed: ${JSON.stringify(result.errors)}`);
  }
  return Buffer.concat([Buffer.from(result.signatures), input]);
}

export async function devSend(o: DevSendOptions): Promise<DevSendResult> {
  const at = o.from.lastIndexOf("@");
  if (at < 1) return { ok: false, reason: "invalid-from" };
  const keyed = ensureDevKey(o.dir, o.zoneFile, o.from.slice(at + 1), o.selector);
  if (!keyed.ok) return keyed;
  const clock = o.clock ?? (() => new Date());
  const unsigned = o.raw
    ? Buffer.from(o.raw)
    : await composeDevMail({
        from: o.from,
        to: o.to,
        ...(o.subject !== undefined ? { subject: o.subject } : {}),
        ...(o.body !== undefined ? { body: o.body } : {}),
        date: clock(),
      });
  const raw = await signWithDevKey(unsigned, keyed.key, clock());
  const transport = nodemailer.createTransport({
    host: o.host ?? "127.0.0.1",
    port: o.port ?? DEFAULT_SMTP_PORT,
    secure: false,
    ignoreTLS: true,
  });
  try {
    const info = await transport.sendMail({ envelope: { from: o.from, to: [...o.to] }, raw });
    const messageId = /^message-id:\s*(<[^>\r\n]*>)/im.exec(unsigned.toString("latin1"))?.[1];
    const sesMessageId = /\bOk ([a-z0-9]{20,})\b/.exec(String(info.response))?.[1];
    // Keep exactly what was sent (signed), named like its stored copy: "why was this refused?" needs the mail.
    const sentDir = join(o.dir, "sent");
    mkdirSync(sentDir, { recursive: true });
    const savedAs = join(sentDir, `${sesMessageId ?? `unstored-${clock().getTime()}`}.eml`);
    writeFileSync(savedAs, raw);
    return { ok: true, messageId, sesMessageId, keyCreated: keyed.created, key: keyed.key, raw, savedAs };
  } finally {
    transport.close();
  }
}
