import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { PREFIXES } from "../../shared/config/index.ts";
import { buildSesNotification, newSesMessageId, type SesReceivedNotification } from "./ses-notification.ts";

export { buildSesNotification, type SesReceivedNotification } from "./ses-notification.ts";

/**
 * Stands in for SES receiving: an SMTP server on loopback that writes each message's raw bytes to
 * `inbound/<sesMessageId>` and publishes the receipt-rule notification (envelope recipients included) to the
 * intake topic, which fans out to the verify queue exactly as SNS does in AWS.
 */
export interface SmtpIntakeOptions {
  readonly host?: string;
  /** 2525 by default; 0 picks a free port (tests). */
  readonly port?: number;
  /** SES accepts at most 40 MB; larger mail is refused with 552 before anything is stored. */
  readonly maxMessageBytes?: number;
  /** When set, RCPT TO outside these domains is refused (as SES does when no receipt rule matches). */
  readonly recipientDomains?: readonly string[];
  readonly bucketName: string;
  readonly topicArn: string;
  /** Write the raw object (S3 PutObject in the stack). */
  readonly store: (key: string, raw: Uint8Array) => Promise<void>;
  /** Publish the notification JSON to the intake topic. */
  readonly publish: (json: string) => Promise<void>;
  readonly clock?: () => Date;
  readonly newId?: () => string;
  /** Called after a message was stored and announced (logging, tests). */
  readonly onReceived?: (notification: SesReceivedNotification) => void;
}

export interface SmtpIntake {
  readonly host: string;
  readonly port: number;
  stop(): Promise<void>;
}

export const DEFAULT_SMTP_PORT = 2525;
export const SES_MAX_MESSAGE_BYTES = 40 * 1024 * 1024;

export async function startSmtpIntake(opts: SmtpIntakeOptions): Promise<SmtpIntake> {
  const host = opts.host ?? "127.0.0.1";
  const maxBytes = opts.maxMessageBytes ?? SES_MAX_MESSAGE_BYTES;
  const clock = opts.clock ?? (() => new Date());
  const newId = opts.newId ?? (() => newSesMessageId());
  const domains = opts.recipientDomains?.map((d) => d.toLowerCase());

  const server = new SMTPServer({
    name: "postern-local-intake",
    // Loopback only and a stand-in for SES: no STARTTLS, no AUTH. 8BITMIME and SMTPUTF8 stay advertised
    // (smtp-server's defaults) so 8-bit bodies and UTF-8 addresses arrive without a 7-bit downgrade.
    disabledCommands: ["STARTTLS", "AUTH"],
    authOptional: true,
    size: maxBytes,
    logger: false,
    // Ctrl-C should not wait 30 s for an idle client to say QUIT.
    closeTimeout: 1000,
    onRcptTo(address, _session, callback) {
      const domain = address.address.slice(address.address.lastIndexOf("@") + 1).toLowerCase();
      if (domains && !domains.includes(domain)) {
        const err = new Error("Requested action not taken: mailbox unavailable") as Error & {
          responseCode: number;
        };
        err.responseCode = 550;
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      receive(stream, session).then(
        (id) => callback(null, `Ok ${id}`),
        (err: Error & { responseCode?: number }) => callback(err),
      );
    },
  });

  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const startedAt = clock();
    const chunks: Buffer[] = [];
    // smtp-server has already removed dot-stuffing (RFC 5321 §4.5.2); everything else is kept byte for byte.
    for await (const chunk of stream) if (!stream.sizeExceeded) chunks.push(chunk as Buffer);
    if (stream.sizeExceeded) {
      const err = new Error(`Message exceeds the fixed size limit of ${maxBytes} bytes`) as Error & {
        responseCode: number;
      };
      err.responseCode = 552;
      throw err;
    }
    const raw = Buffer.concat(chunks);
    const id = newId();
    await opts.store(PREFIXES.inbound + id, raw);
    const envelope = session.envelope;
    const notification = buildSesNotification({
      messageId: id,
      receivedAt: startedAt,
      processingTimeMillis: Math.max(0, clock().getTime() - startedAt.getTime()),
      envelope: {
        mailFrom: envelope.mailFrom ? envelope.mailFrom.address : "",
        rcptTo: envelope.rcptTo.map((r) => r.address),
      },
      raw,
      topicArn: opts.topicArn,
      bucketName: opts.bucketName,
      objectKeyPrefix: PREFIXES.inbound,
    });
    await opts.publish(JSON.stringify(notification));
    opts.onReceived?.(notification);
    return id;
  }

  await new Promise<void>((res, rej) => {
    server.once("error", rej);
    server.listen(opts.port ?? DEFAULT_SMTP_PORT, host, () => {
      server.off("error", rej);
      res();
    });
  });
  // A broken client connection must not take the stack down.
  server.on("error", () => {});
  const port = (server.server.address() as AddressInfo).port;
  return {
    host,
    port,
    stop: () => new Promise<void>((res) => server.close(() => res())),
  };
}
