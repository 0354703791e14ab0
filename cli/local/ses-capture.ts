import { randomBytes, randomUUID } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { rewriteAsSes } from "./ses-header-rewrite.ts";

/**
 * An SESv2-compatible `SendEmail` endpoint that sends nothing: it keeps the mail as recipients would get it in
 * `<outboxDir>/<MessageId>.eml`: byte for byte what we sent, except the Message-ID and Date SES writes over ours
 * (ses-header-rewrite.ts), plus `<MessageId>.json` with the API envelope, which the raw mail does not carry
 * (Destination may hold Bcc recipients). `aws-ses-v2-local` re-encodes messages, so it cannot serve as evidence
 * that what we built is what would leave.
 */
export interface SesCaptureOptions {
  readonly outboxDir: string;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly newId?: () => string;
  readonly onCaptured?: (mail: CapturedMail) => void;
  /** The region whose SES host names the Message-ID (`<id>@<region>.amazonses.com`). Default us-east-1. */
  readonly region?: string;
  readonly clock?: () => Date;
}

export interface CapturedMail {
  readonly messageId: string;
  readonly emlPath: string;
  readonly fromEmailAddress?: string;
  readonly destination?: unknown;
  readonly configurationSetName?: string;
  readonly bytes: number;
}

export interface SesCapture {
  /** Give this to the SESv2 client (`resources.endpoints.ses`). */
  readonly endpoint: string;
  readonly outboxDir: string;
  stop(): Promise<void>;
}

/**
 * Recipients at this domain are refused as the SES sandbox refuses an unverified recipient: HTTP 400
 * `MessageRejected` with SES's own message. It lets the local stack (and its tests) show what happens to a send SES
 * refuses for good (G19); `.test` is reserved (RFC 2606), so no real address is ever refused by it.
 */
export const UNVERIFIED_DOMAIN = "unverified.postern.test";

/** SES's sandbox message for a recipient that is not a verified identity (as SESv2 SendEmail words it). */
export function sandboxRejection(recipients: readonly string[], region: string): string {
  return `Email address is not verified. The following identities failed the check in region ${region.toUpperCase()}: ${recipients.join(", ")}`;
}

function unverifiedRecipients(destination: unknown): string[] {
  const d = (destination ?? {}) as Record<string, unknown>;
  const all = ["ToAddresses", "CcAddresses", "BccAddresses"].flatMap((k) =>
    Array.isArray(d[k]) ? (d[k] as unknown[]).filter((a): a is string => typeof a === "string") : [],
  );
  return all.filter((a) => a.toLowerCase().endsWith(`@${UNVERIFIED_DOMAIN}`));
}

/** SES's own limit for a raw message (SESv2 SendEmail), base64 inflates it by a third on the wire. */
const MAX_RAW_BYTES = 40 * 1024 * 1024;
const MAX_BODY_BYTES = Math.ceil((MAX_RAW_BYTES * 4) / 3) + 1024 * 1024;

/** SES message ids look like `010001...-uuid-000000`; keep the shape so logs read the same. */
export function newSesOutboundId(): string {
  return `0100${randomBytes(6).toString("hex")}-${randomUUID()}-000000`;
}

export async function startSesCapture(opts: SesCaptureOptions): Promise<SesCapture> {
  await mkdir(opts.outboxDir, { recursive: true });
  const newId = opts.newId ?? newSesOutboundId;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "POST" || path !== "/v2/email/outbound-emails") {
      return sendError(
        res,
        404,
        "NotFoundException",
        `the local SES capture serves only SendEmail, not ${path}`,
      );
    }
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === undefined) return sendError(res, 400, "MessageRejected", "Message length exceeds the limit");
    let input: SendEmailBody;
    try {
      input = JSON.parse(body.toString("utf8")) as SendEmailBody;
    } catch {
      return sendError(res, 400, "BadRequestException", "request body is not JSON");
    }
    const data = input.Content?.Raw?.Data;
    if (typeof data !== "string") {
      // Postern only sends raw MIME (it signs and threads the message itself); Simple/Template would be rebuilt
      // by SES and could not be captured byte-exact.
      return sendError(
        res,
        400,
        "BadRequestException",
        "the local SES capture accepts only Content.Raw.Data",
      );
    }
    const raw = Buffer.from(data, "base64");
    if (raw.length > MAX_RAW_BYTES)
      return sendError(res, 400, "MessageRejected", "Message length exceeds the limit");
    const unverified = unverifiedRecipients(input.Destination);
    if (unverified.length > 0)
      return sendError(res, 400, "MessageRejected", sandboxRejection(unverified, opts.region ?? "us-east-1"));
    const messageId = newId();
    const emlPath = join(opts.outboxDir, `${messageId}.eml`);
    const mail: CapturedMail = {
      messageId,
      emlPath,
      bytes: raw.length,
      ...(input.FromEmailAddress !== undefined ? { fromEmailAddress: input.FromEmailAddress } : {}),
      ...(input.Destination !== undefined ? { destination: input.Destination } : {}),
      ...(input.ConfigurationSetName !== undefined
        ? { configurationSetName: input.ConfigurationSetName }
        : {}),
    };
    // Written under a temporary name and renamed: whoever watches the outbox (a test, a developer's tail) never
    // reads a half-written mail.
    await writeWhole(
      emlPath,
      rewriteAsSes(raw, messageId, opts.region ?? "us-east-1", (opts.clock ?? (() => new Date()))()),
    );
    await writeWhole(join(opts.outboxDir, `${messageId}.json`), `${JSON.stringify(mail, null, 2)}\n`);
    opts.onCaptured?.(mail);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ MessageId: messageId }));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => sendError(res, 500, "InternalFailure", String(err)));
  });
  await new Promise<void>((res, rej) => {
    server.once("error", rej);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => res());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${opts.host ?? "127.0.0.1"}:${port}`,
    outboxDir: opts.outboxDir,
    stop: () =>
      new Promise<void>((res) => {
        server.close(() => res());
        server.closeAllConnections();
      }),
  };
}

interface SendEmailBody {
  FromEmailAddress?: string;
  Destination?: unknown;
  ConfigurationSetName?: string;
  Content?: { Raw?: { Data?: unknown } };
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((res, rej) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on("end", () => res(over ? undefined : Buffer.concat(chunks)));
    req.on("error", rej);
  });
}

/** SESv2 is restJson: the SDK reads the error code from `x-amzn-ErrorType`. */
function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", "x-amzn-errortype": code });
  res.end(JSON.stringify({ message }));
}

/** Write, then rename into place (atomic on one filesystem): the file appears whole or not at all. */
async function writeWhole(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.partial`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}
