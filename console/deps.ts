import {
  type AdminCatalog,
  type AdminEditor,
  adminCatalog,
  runningConfigCite,
} from "../shared/admin/index.ts";
import { changedConfigFiles, type DeploymentConfig } from "../shared/config/index.ts";
import type { Logger } from "../shared/logger.ts";
import { type ConnectorOptions, type McpConnector, mcpConnector } from "../shared/mcp/index.ts";
import { systemResolver } from "../shared/net/index.ts";
import type {
  AuditLog,
  Blobs,
  FailureReader,
  IndexReader,
  KeyValueState,
  MessageStore,
  PlanPort,
  RunEventReader,
  RunReader,
  SendOutcomeReader,
  ThreadReader,
  TraceReader,
} from "../shared/ports/index.ts";
// The console's one composition root (with its two entry points, lambda.ts and server.ts): the only console files
// that may import the store (test/layers/module-map.ts). The rest of the console sees the ports below.
import {
  AuditRepo,
  IndexReads,
  PlanStore,
  type Platform,
  SendOutcomeReads,
  TraceLookups,
} from "../shared/store/index.ts";
import type { ToolRegistry } from "../shared/tool-framework/index.ts";
import {
  type BreakerState,
  type DeliveryEntry,
  dynamoWebhookState,
  type EndpointReachOptions,
  type SecretStore,
  type WebhooksPayload,
} from "../shared/webhooks/index.ts";
import { grantableNames } from "../tools/index.ts";
import { type SessionRevocations, stateRevocations } from "./auth/revocations.ts";

/**
 * Everything the console reads and writes, through the same repositories the CLI and the functions use: there is
 * no second way into the data. Each field is typed by the port it uses, only the methods the console calls: the
 * repositories implement them (shared/ports, shared/admin's AdminEditor). Writes are the admin tables (the import
 * path), the audit log, a plan decision marker in `state`, and a confirm message on the agent-step queue (the
 * mailed confirmation's path).
 */
export interface ConsoleDeps {
  readonly admin: AdminEditor;
  readonly runs: RunReader;
  readonly runEvents: RunEventReader;
  readonly messages: Pick<MessageStore, "get" | "listByAgent">;
  readonly threads: ThreadReader;
  readonly blobs: Pick<Blobs, "get" | "getText">;
  readonly state: KeyValueState;
  readonly plans: Pick<PlanPort, "get">;
  readonly index: IndexReader;
  readonly audit: AuditLog;
  readonly lookups: TraceReader;
  /** SES's bounces, complaints, rejects and delivery delays, per agent. */
  readonly deliveryEvents: SendOutcomeReader;
  /** G19: every failure that must reach a person, per day (one Query of `state` per day shown). */
  readonly failures: FailureReader;
  /** Signed events: each endpoint's recent deliveries and its breaker (docs/events.md). */
  readonly webhooks: {
    recent(endpointId: string, limit: number): Promise<DeliveryEntry[]>;
    breaker(endpointId: string): Promise<BreakerState>;
  };
  /**
   * Where webhook signing secrets are kept (Secrets Manager in AWS, the stack's secrets file locally); null where the
   * console was started without one: it then refuses to register or rotate (an endpoint is never live unsigned).
   */
  readonly webhookSecrets: SecretStore | null;
  /** Where the events worker delivers: an added endpoint it could never reach is refused (public only in AWS). */
  readonly webhookReach: EndpointReachOptions;
  /** Puts a message on the events queue (a `webhook.test`); null where the stack has no events queue. */
  enqueueEvent: ((m: WebhooksPayload) => Promise<void>) | null;
  /**
   * How the console reaches an MCP server to list its tools: the SSRF-safe connector (public addresses only in AWS,
   * loopback too locally, never stdio). `loopbackHttp`: plain http is accepted for a loopback URL (local only).
   */
  readonly mcp: { readonly connect: McpConnector; readonly loopbackHttp: boolean };
  /** Signed-out sessions, checked on every request. */
  readonly sessions: SessionRevocations;
  readonly registry: ToolRegistry;
  readonly config: DeploymentConfig;
  /** What admin writes are checked against: the config's domains and models, the registry's tools. */
  readonly catalog: AdminCatalog;
  /** A JSON body on the agent-step queue. */
  enqueueStep(body: object): Promise<void>;
  now(): Date;
  readonly logger: Logger;
}

/** What only the console's root needs beside the platform. */
export interface ConsoleParts {
  readonly registry: ToolRegistry;
  readonly webhookSecrets?: SecretStore;
  /**
   * Local only: the config file the stack started from. A refused write then names it, and says when the file on
   * disk has changed since (the stack keeps running what it loaded; in AWS the deployed config is the config).
   */
  readonly configFile?: string;
  /** Local only: the stack's worker reaches webhook receivers on loopback (POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1). */
  readonly webhook?: { readonly local: boolean; readonly allowLoopback: boolean };
  /** MCP listing: where secret references resolve, and the local stack's loopback setting (never stdio). */
  readonly mcp?: Pick<ConnectorOptions, "secret"> & { readonly allowLoopback?: boolean };
}

/**
 * The console's catalog: the deployment's config; locally, re-read against the stack's config file at each use,
 * so a refusal says when the file on disk differs from what the stack runs.
 */
export function consoleCatalog(
  config: DeploymentConfig,
  tools: readonly string[],
  configFile?: string,
): () => AdminCatalog {
  const fixed = adminCatalog(config, tools);
  if (!configFile) return () => fixed;
  return () =>
    adminCatalog(config, tools, runningConfigCite(configFile, changedConfigFiles(config, [configFile])));
}

export function consoleDeps(platform: Platform, parts: ConsoleParts): ConsoleDeps {
  const catalog = consoleCatalog(platform.config, grantableNames(parts.registry), parts.configFile);
  const { clients, resources, stores, now } = platform;
  const base = { dynamo: clients.dynamo, tables: resources.tables };
  const { state } = stores;
  // The repositories every function builds (the platform's stores); the console adds its own reads.
  return {
    admin: stores.admin,
    runs: stores.runs,
    runEvents: stores.runEvents,
    messages: stores.messages,
    threads: stores.threads,
    blobs: stores.blobs,
    state,
    plans: new PlanStore({ ...base, state }),
    index: new IndexReads(base),
    audit: new AuditRepo({ ...base, now }),
    lookups: new TraceLookups(state),
    deliveryEvents: new SendOutcomeReads(base),
    failures: stores.failures,
    webhooks: (() => {
      const events = dynamoWebhookState(base);
      return { recent: (id, limit) => events.log.recent(id, limit), breaker: (id) => events.breaker.get(id) };
    })(),
    webhookSecrets: parts.webhookSecrets ?? null,
    webhookReach: {
      resolve: systemResolver,
      allowLoopback: parts.webhook?.allowLoopback === true,
      local: parts.webhook?.local === true,
    },
    enqueueEvent: resources.queues.events
      ? async (m) => void (await stores.queue.send(resources.queues.events as string, m))
      : null,
    mcp: {
      // stdio stays CLI-only: the console never starts a process a form named.
      connect: mcpConnector({
        resolve: systemResolver,
        secret: parts.mcp?.secret ?? (async () => undefined),
        ...(parts.mcp?.allowLoopback ? { local: { allowStdio: false, allowLoopback: true } } : {}),
      }),
      loopbackHttp: parts.mcp?.allowLoopback === true,
    },
    sessions: stateRevocations(state, platform.config.console.sessionMinutes * 60),
    registry: parts.registry,
    config: platform.config,
    get catalog() {
      return catalog();
    },
    enqueueStep: async (body) => {
      await stores.queue.send(resources.queues.agentStep, body);
    },
    now,
    logger: platform.logger,
  };
}
