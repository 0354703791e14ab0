import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import type { SESv2Client } from "@aws-sdk/client-sesv2";
import type { DNSResolver } from "mailauth";
import { adminCatalog } from "../../shared/admin/index.ts";
import type { CallObserver } from "../../shared/aws/index.ts";
import { type AwsClients, makeClients, makeSesClient } from "../../shared/aws/index.ts";
import type { Resources } from "../../shared/config/index.ts";
import { type LoadedConfig, loadConfigFile } from "../../shared/config/index.ts";
import { PosternError } from "../../shared/errors.ts";
import { type Logger, silentLogger } from "../../shared/logger.ts";
import { zoneFileResolver } from "../../shared/runtime/index.ts";
import type { DeliveryPolicy } from "../../shared/webhooks/index.ts";
import { grantableNames } from "../../tools/index.ts";
import { CommandFailure } from "../errors.ts";
import { DEMO_DOMAIN, DEMO_OPERATOR, type DemoSeed, ensureDemoFiles, seedDemo } from "./demo.ts";
import { ensureDevKey } from "./dev-keys.ts";
import { ensureZoneFile } from "./dns-zone.ts";
import { type Emulators, startEmulators } from "./emulators.ts";
import { type HandlerSet, type QueueKey, startPollers } from "./poller.ts";
import { startSesCapture } from "./ses-capture.ts";
import type { SesReceivedNotification } from "./ses-notification.ts";
import { DEFAULT_SMTP_PORT, startSmtpIntake } from "./smtp-intake.ts";
import { liveStackFile, removeStackFile, writeStackFile } from "./stack-file.ts";
import { takeOverFromStoppedStack } from "./take-over.ts";

/**
 * The whole local stack, used by `npm start` and by the integration tests: emulators, the SMTP intake standing in
 * for SES receiving, the SES capture standing in for SES sending, the SQS pollers standing in for Lambda's event
 * source mappings, and the DKIM zone file. Everything it creates lives under `dir`.
 */
export interface LocalStackOptions {
  /** Default `.postern` (relative to the working directory). */
  readonly dir?: string;
  /** Keep emulator state in `<dir>/data` across restarts (npm start); in memory otherwise (tests). */
  readonly persist?: boolean;
  readonly smtpHost?: string;
  /** Default 2525; 0 picks a free port. */
  readonly smtpPort?: number;
  /** Emulator and SES capture ports; default 0 (free ports). */
  readonly awsPort?: number;
  readonly dynamoPort?: number;
  readonly sesPort?: number;
  /** The pipeline's handlers, or a factory given the started stack (handlers need its endpoints). */
  readonly handlers?: HandlerSet | ((stack: HandlerContext) => HandlerSet);
  /** Default `<dir>/dns.json`, created as `{}` if missing. */
  readonly zoneFile?: string;
  /** Default `postern.config.json`; when it does not exist the demo config is used (and the demo seeded). */
  readonly configPath?: string;
  /**
   * The demo's approver: the console's local operator (default DEMO_OPERATOR), so a demo plan can be applied in the
   * console. Only used when the demo is seeded.
   */
  readonly demoOperator?: string;
  readonly maxReceiveCount?: number;
  /** Seconds; short values keep redelivery tests fast. */
  readonly visibilityTimeout?: number;
  readonly batchSize?: number;
  readonly waitTimeSeconds?: number;
  readonly logger?: Logger;
  readonly onReceived?: (notification: SesReceivedNotification) => void;
  /**
   * Sees every AWS SDK command, tagged with who issued it: a function (`verify`, `agent-step`, `outbound`) or the
   * stack itself (`stack`: the SES intake's S3 write, the pollers standing in for Lambda's SQS event sources).
   */
  readonly observe?: (issuer: CallIssuer) => CallObserver;
  /**
   * Local only: webhook endpoints on loopback over plain http may be reached (tests, a receiver on this machine).
   * Nothing in AWS can set it; `npm start` sets it from POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1.
   */
  readonly webhookLoopback?: boolean;
  /** The events worker's retry schedule and breaker; short values keep retry tests fast. */
  readonly webhookPolicy?: DeliveryPolicy;
}

export type CallIssuer = "verify" | "agent-step" | "outbound" | "webhooks" | "stack";

/** What a handler factory gets: the started stack's resources, clients, config and DNS. */
export interface HandlerContext {
  /** Receives before a queue's message moves to its DLQ (Lambda's maxReceiveCount). */
  readonly maxReceiveCount: number;
  readonly resources: Resources;
  readonly clients: AwsClients;
  readonly config: LoadedConfig;
  readonly resolver: DNSResolver;
  readonly observe?: (issuer: CallIssuer) => CallObserver;
  /** The stack's directory: its secrets file (`secrets.json`) stands in for Secrets Manager. */
  readonly dir: string;
  readonly webhookLoopback?: boolean;
  readonly webhookPolicy?: DeliveryPolicy;
}

export interface LocalStack {
  readonly dir: string;
  /** Includes `endpoints.ses` (the capture), so `makeClients(resources)` reaches every local service. */
  readonly resources: Resources;
  /** The stores' clients, and an SES client on the capture (for tests and tools that send as SES would). */
  readonly clients: AwsClients & { readonly ses: SESv2Client };
  readonly emulators: Emulators;
  readonly config: LoadedConfig;
  /** True when no postern.config.json existed and the demo config is in use. */
  readonly demo: boolean;
  /** What seeding the demo did at this start (absent without the demo). */
  readonly demoSeed?: DemoSeed;
  readonly smtp: { readonly host: string; readonly port: number };
  readonly outboxDir: string;
  readonly zoneFile: string;
  readonly stackFile: string;
  /** The deployment config file the stack runs with (the demo's without postern.config.json). */
  readonly configFile: string;
  readonly resolver: DNSResolver;
  readonly pollers: { readonly polled: readonly QueueKey[]; readonly skipped: readonly QueueKey[] };
  /** Webhook receivers on loopback are reached (POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1). */
  readonly webhookLoopback: boolean;
  stop(): Promise<void>;
}

export async function startLocalStack(opts: LocalStackOptions = {}): Promise<LocalStack> {
  const dir = resolve(opts.dir ?? ".postern");
  mkdirSync(dir, { recursive: true });
  const stackFile = join(dir, "stack.json");
  const running = liveStackFile(stackFile);
  if (running && running.pid !== process.pid) {
    // Two processes on one LevelDB/SQLite directory corrupt state; say which process holds it.
    throw new CommandFailure(
      `a local stack is already running from ${dir} (pid ${running.pid}); stop it with Ctrl-C in its terminal or \`kill ${running.pid}\``,
    );
  }
  const zoneFile = resolve(opts.zoneFile ?? join(dir, "dns.json"));
  ensureZoneFile(zoneFile);
  const outboxDir = join(dir, "outbox");
  const logger = opts.logger ?? silentLogger;

  const configPath = resolve(opts.configPath ?? "postern.config.json");
  const demo = !existsSync(configPath);
  const configFile = demo ? ensureDemoFiles(dir) : configPath;
  const config = loadConfigFile(configFile);

  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const emulators = await startEmulators({
      ...(opts.persist ? { dataDir: join(dir, "data") } : {}),
      ...(opts.awsPort !== undefined ? { awsPort: opts.awsPort } : {}),
      ...(opts.dynamoPort !== undefined ? { dynamoPort: opts.dynamoPort } : {}),
      ...(opts.maxReceiveCount !== undefined ? { maxReceiveCount: opts.maxReceiveCount } : {}),
      ...(opts.visibilityTimeout !== undefined ? { visibilityTimeout: opts.visibilityTimeout } : {}),
    });
    stops.push(() => emulators.stop());

    const ses = await startSesCapture({
      outboxDir,
      port: opts.sesPort ?? 0,
      region: emulators.resources.region,
    });
    stops.push(() => ses.stop());
    const resources: Resources = {
      ...emulators.resources,
      endpoints: { ...emulators.resources.endpoints, ses: ses.endpoint },
    };
    const clients = {
      ...makeClients(resources, opts.observe?.("stack")),
      ses: makeSesClient(resources, opts.observe?.("stack")),
    };
    stops.push(async () => destroyClients(clients));

    let demoSeed: DemoSeed | undefined;
    if (demo) {
      const key = ensureDevKey(dir, zoneFile, DEMO_DOMAIN);
      if (!key.ok) throw new PosternError("invariant-broken", `demo key: ${key.reason}`);
      demoSeed = await seedDemo(clients, resources, logger, {
        operator: opts.demoOperator ?? DEMO_OPERATOR,
        catalog: adminCatalog(config.config, grantableNames()),
      });
    }

    const smtp = await startSmtpIntake({
      ...(opts.smtpHost !== undefined ? { host: opts.smtpHost } : {}),
      port: opts.smtpPort ?? DEFAULT_SMTP_PORT,
      maxMessageBytes: config.config.attachments.maxMessageBytes,
      recipientDomains: config.config.domains,
      bucketName: resources.bucket,
      topicArn: emulators.intakeTopicArn,
      store: async (key, raw) => {
        await clients.s3.send(new PutObjectCommand({ Bucket: resources.bucket, Key: key, Body: raw }));
      },
      publish: async (json) => {
        emulators.fauxqs.publish(emulators.intakeTopic, json);
      },
      ...(opts.onReceived ? { onReceived: opts.onReceived } : {}),
    });
    stops.push(() => smtp.stop());

    const handlers =
      typeof opts.handlers === "function"
        ? opts.handlers({
            maxReceiveCount: opts.maxReceiveCount ?? 3,
            resources,
            clients,
            config,
            resolver: zoneFileResolver(zoneFile),
            ...(opts.observe ? { observe: opts.observe } : {}),
            dir,
            ...(opts.webhookLoopback ? { webhookLoopback: true } : {}),
            ...(opts.webhookPolicy ? { webhookPolicy: opts.webhookPolicy } : {}),
          })
        : (opts.handlers ?? {});
    // Before the pollers: the stack.json check above makes this the only stack on this directory.
    if (opts.persist) await takeOverFromStoppedStack(emulators, clients, logger);
    const pollers = await startPollers(resources, clients.sqs, handlers, {
      ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
      ...(opts.waitTimeSeconds !== undefined ? { waitTimeSeconds: opts.waitTimeSeconds } : {}),
    });
    stops.push(() => pollers.stop());

    writeStackFile(stackFile, {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      resources,
      smtp: { host: smtp.host, port: smtp.port },
      outboxDir,
      zoneFile,
      configFile,
      config: config.config,
      // Always written (false too): a CLI must not read a missing field as its own shell's setting.
      webhookLoopback: opts.webhookLoopback === true,
    });
    stops.push(async () => removeStackFile(stackFile));

    return {
      dir,
      resources,
      clients,
      emulators,
      config,
      demo,
      ...(demoSeed ? { demoSeed } : {}),
      smtp: { host: smtp.host, port: smtp.port },
      outboxDir,
      zoneFile,
      stackFile,
      configFile,
      resolver: zoneFileResolver(zoneFile),
      pollers: { polled: pollers.polled, skipped: pollers.skipped },
      webhookLoopback: opts.webhookLoopback === true,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

function destroyClients(c: AwsClients & { readonly ses: SESv2Client }): void {
  c.s3.destroy();
  c.sqs.destroy();
  c.dynamo.destroy();
  c.ses.destroy();
}
