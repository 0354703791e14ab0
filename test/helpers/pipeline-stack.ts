import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { ensureDevKey } from "../../cli/local/dev-keys.ts";
import { pipelineHandlers } from "../../cli/local/pipeline.ts";
import { type LocalStack, type LocalStackOptions, startLocalStack } from "../../cli/local/stack.ts";
import type { KeyedLogger } from "../../shared/logger.ts";
import { signMessage } from "../../shared/mail/dkim-sign.ts";
import type { ToolRegistry } from "../../shared/tool-framework/registry.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";

/** Poll until `probe` returns something (not undefined), or fail naming what never happened. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Each function's logger in the local pipeline: recorded, so nothing reaches the test output. */
export const quietLogger = (): KeyedLogger => recordingLogger();

/**
 * The whole local pipeline (SMTP intake → verify → agent-step → outbound → SES capture) in memory on free ports,
 * with a config (and optional model script) written to a temp dir: the real handlers, the real SDK clients.
 */
export async function startPipelineStack(opts: {
  config: Record<string, unknown>;
  script?: unknown;
  registry?: ToolRegistry;
  logger?: (service: string) => KeyedLogger;
  /** Sees every AWS SDK command, per issuer (the local stack's `observe`). */
  observe?: LocalStackOptions["observe"];
  /** The events worker's local-only loopback setting and retry policy (docs/events.md). */
  webhookLoopback?: boolean;
  webhookPolicy?: LocalStackOptions["webhookPolicy"];
}): Promise<{ stack: LocalStack; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "postern-stack-"));
  if (opts.script !== undefined) writeFileSync(join(dir, "script.json"), JSON.stringify(opts.script));
  writeFileSync(join(dir, "postern.config.json"), JSON.stringify(opts.config));
  const stack = await startLocalStack({
    dir,
    configPath: join(dir, "postern.config.json"),
    smtpPort: 0,
    waitTimeSeconds: 1,
    handlers: (ctx) =>
      pipelineHandlers(ctx, opts.logger ?? quietLogger, ...(opts.registry ? [opts.registry] : [])),
    ...(opts.observe ? { observe: opts.observe } : {}),
    ...(opts.webhookLoopback ? { webhookLoopback: true } : {}),
    ...(opts.webhookPolicy ? { webhookPolicy: opts.webhookPolicy } : {}),
  });
  return { stack, dir };
}

/**
 * The stack's config and script for the common case: one agent domain, a scripted model that answers with one
 * reply (`body`) and then stops.
 */
export function replyOnce(body: string): { config: Record<string, unknown>; script: unknown } {
  return {
    config: {
      domains: ["agents.example.net"],
      models: [{ id: "demo", provider: "scripted", script: "script.json", egress: "internal" }],
    },
    script: {
      turns: [{ toolCalls: [{ name: "send_email", input: { mode: "reply", body } }] }, { text: "done" }],
    },
  };
}

/**
 * Hand raw bytes to the stack's SMTP intake as they are (no new signature: what a relay or a replayer does), with
 * the envelope given; the intake's SES message id.
 */
export async function relayRaw(
  stack: LocalStack,
  raw: Buffer,
  envelope: { readonly to: string[]; readonly from: string },
): Promise<string> {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: stack.smtp.port,
    secure: false,
    ignoreTLS: true,
  });
  try {
    const info = await transport.sendMail({ envelope, raw });
    const id = /\bOk ([a-z0-9]{20,})\b/.exec(String(info.response))?.[1];
    if (!id) throw new Error("no SES id from the intake");
    return id;
  } finally {
    transport.close();
  }
}

/** A mail's header fields and body, for signing in a shape a provider signs (signWithDevKeyAs). */
export interface ShapedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly cc?: readonly string[];
  readonly subject: string;
  readonly messageId: string;
  /** Fields after Message-ID, as written (MIME-Version, In-Reply-To, ...). */
  readonly extra?: readonly string[];
  readonly body: string;
}

/**
 * `mail` signed by its From domain's dev key (in the stack's zone file) with exactly the header fields `h` in h=:
 * signers differ in what they sign (docs/gate.md's provider tables), and the gate reads only what `h=` covers.
 */
export async function signWithDevKeyAs(
  stack: LocalStack,
  dir: string,
  h: readonly string[],
  mail: ShapedMail,
): Promise<Buffer> {
  const domain = mail.from.slice(mail.from.indexOf("@") + 1);
  const key = ensureDevKey(dir, stack.zoneFile, domain);
  if (!key.ok) throw new Error(key.reason);
  const lines = [
    `From: ${mail.from}`,
    `To: ${mail.to.join(", ")}`,
    ...(mail.cc ? [`Cc: ${mail.cc.join(", ")}`] : []),
    `Subject: ${mail.subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: ${mail.messageId}`,
    ...(mail.extra ?? []),
  ];
  return signMessage(`${lines.join("\r\n")}\r\n\r\n${mail.body}\r\n`, {
    domain,
    selector: key.key.selector,
    privateKeyPem: key.key.privateKeyPem,
    headers: [...h],
    signTime: new Date(),
  });
}
