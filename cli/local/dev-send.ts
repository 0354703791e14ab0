import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dkimSign } from "mailauth/lib/dkim/sign.js";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import { PosternError } from "../../shared/errors.ts";
import { type FailWithDetail, fail, type Ok, ok } from "../../shared/result.ts";
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
  | { readonly ok: false; readonly reason: "invalid-from" }
  | DevSendFailure;

/**
 * What stops a well-formed invocation (one line, not nodemailer's error object or mailauth's JSON):
 * `not-a-mail` the bytes have no From header to sign, `smtp-unreachable` nothing listens where the mail goes,
 * `smtp-refused` the intake said no (a recipient outside the registered domains, a mail over the size limit).
 */
export type DevSendFailure = FailWithDetail<
  "not-a-mail" | "signing-failed" | "smtp-unreachable" | "smtp-refused"
>;

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
  const r = await signDevMail(raw, key, signTime);
  if (!r.ok) throw new PosternError("dependency-failed", `DKIM signing failed: ${r.detail}`);
  return r.raw;
}

async function signDevMail(
  raw: Uint8Array,
  key: DevKey,
  signTime?: Date,
): Promise<Ok<{ raw: Buffer }> | FailWithDetail<"not-a-mail" | "signing-failed">> {
  const input = Buffer.from(raw);
  const signer = { signingDomain: key.domain, selector: key.selector, privateKey: key.privateKeyPem };
  // mailauth signs nothing unless the key sits inside signatureData (TOOLCHAIN.md); its types want both.
  const result = await dkimSign(input, {
    ...signer,
    canonicalization: "relaxed/relaxed",
    signatureData: [signer],
    ...(signTime ? { signTime } : {}),
  });
  const codes = (result.errors ?? []).map((e) =>
    String((e as { err?: { code?: unknown } }).err?.code ?? "?"),
  );
  // mailauth signs the first From header: without one (plain text, a binary, a truncated file) nothing is a mail.
  if (codes.includes("ENOFROM"))
    return fail(
      "not-a-mail",
      "this is not a mail message: it has no From header to sign (an .eml file starts with header lines such as From:, To:, Subject:)",
    );
  if (codes.length > 0 || !result.signatures)
    return fail("signing-failed", `DKIM signing failed (${codes.join(", ") || "no signature produced"})`);
  return ok({ raw: Buffer.concat([Buffer.from(result.signatures), input]) });
}

/** nodemailer's error for a refused or failed SMTP transaction, as one line that says what to do. */
function smtpFailure(err: unknown, host: string, port: number): DevSendFailure {
  const e = err as NodeJS.ErrnoException & { response?: string; rejected?: string[]; responseCode?: number };
  if (e.code === "ESOCKET" || e.code === "ECONNECTION" || e.code === "ECONNREFUSED")
    return fail(
      "smtp-unreachable",
      `nothing accepts SMTP at ${host}:${port}; start the local stack with \`npm start\` (or pass --port)`,
    );
  if (e.code === "EENVELOPE" && e.rejected?.length)
    return fail(
      "smtp-refused",
      `the local stack refused ${e.rejected.join(", ")}: mail is taken only for its registered domains ` +
        "(the demo's is demo.postern.test; otherwise postern.config.json's domains)",
    );
  if (typeof e.response === "string")
    return fail("smtp-refused", `the local stack refused the mail: ${e.response}`);
  throw err;
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
  const signed = await signDevMail(unsigned, keyed.key, clock());
  if (!signed.ok) return signed;
  const raw = signed.raw;
  const host = o.host ?? "127.0.0.1";
  const port = o.port ?? DEFAULT_SMTP_PORT;
  const transport = nodemailer.createTransport({
    host,
    port,
    secure: false,
    ignoreTLS: true,
  });
  try {
    let info: { response: string };
    try {
      info = await transport.sendMail({ envelope: { from: o.from, to: [...o.to] }, raw });
    } catch (err) {
      return smtpFailure(err, host, port);
    }
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
