import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { AwsClients } from "../shared/aws/index.ts";
import type { DeploymentConfig, Resources } from "../shared/config/index.ts";
import type { Logger } from "../shared/logger.ts";
import { mcpSecretLookup } from "../shared/mcp/index.ts";
import { envSecretSource, type SecretSource } from "../shared/secrets/index.ts";
import { makePlatform } from "../shared/store/index.ts";
import type { ToolRegistry } from "../shared/tool-framework/index.ts";
import type { SecretStore } from "../shared/webhooks/index.ts";
import { defaultRegistry } from "../tools/index.ts";
import { createConsoleApp } from "./app.ts";
import { LOCAL_ADMIN, type LocalOperator, type LocalSignIn, localSignIn } from "./auth/local-sign-in.ts";
import { consoleDeps } from "./deps.ts";

/** Loopback only: the console is for this machine (DNS rebinding is answered by the origin check, 421). */
const LOOPBACK = "127.0.0.1";

/** The console's local port (0 picks a free one). */
export const DEFAULT_CONSOLE_PORT = 4570;
/**
 * The local operator's identity: an admin, and the demo's approver (cli/local/demo.ts DEMO_OPERATOR, the same
 * address). A `.test` address the outbound mails (`operator@localhost` is recipient-invalid), so a confirm card to
 * it lands in the capture outbox.
 */
export const DEFAULT_CONSOLE_EMAIL = "operator@postern.test";

export interface LocalConsole {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly signIn: LocalSignIn;
  /** A fresh one-time sign-in link (as the local admin, or as `who`). */
  link(who?: LocalOperator): string;
  stop(): Promise<void>;
}

/**
 * The console on the local stack: the same app as in AWS, on 127.0.0.1 only (never another interface), answering
 * only at the URL it prints (`http://127.0.0.1:<port>`, its configured origin), with one-time sign-in links
 * instead of Cognito.
 */
export async function startLocalConsole(opts: {
  clients: AwsClients;
  resources: Resources;
  config: DeploymentConfig;
  logger: Logger;
  port?: number;
  operatorEmail?: string;
  registry?: ToolRegistry;
  now?: () => Date;
  /** The key sign-in links are signed with; default a fresh random one (see console/auth/link-token.ts). */
  linkKey?: Uint8Array;
  /** Webhook signing secrets (the stack's secrets file); without it the console registers no endpoint. */
  webhookSecrets?: SecretStore;
  /** Where MCP secret references resolve when listing a server's tools; default this process's environment. */
  mcpSecrets?: SecretSource;
  /** The stack's worker reaches webhook receivers on loopback (POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1). */
  webhookLoopback?: boolean;
  /** The config file the stack started from: refusals name it and say when it has changed since. */
  configFile?: string;
}): Promise<LocalConsole> {
  const operator = LOCAL_ADMIN((opts.operatorEmail ?? DEFAULT_CONSOLE_EMAIL).toLowerCase());
  const signIn = localSignIn({
    operator,
    sessionMinutes: opts.config.console.sessionMinutes,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.linkKey ? { linkKey: opts.linkKey } : {}),
  });
  const platform = makePlatform({
    clients: opts.clients,
    resources: opts.resources,
    config: opts.config,
    logger: opts.logger,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const deps = consoleDeps(platform, {
    registry: opts.registry ?? defaultRegistry(),
    ...(opts.webhookSecrets ? { webhookSecrets: opts.webhookSecrets } : {}),
    webhook: { local: true, allowLoopback: opts.webhookLoopback === true },
    ...(opts.configFile ? { configFile: opts.configFile } : {}),
    // A server on this machine may be tried from the local console, as from the local stack; never stdio.
    mcp: { secret: mcpSecretLookup(opts.mcpSecrets ?? envSecretSource()), allowLoopback: true },
  });
  // The origin is the URL printed below, known once the port is (0 picks one): the app is built then, and a request
  // that came before it (none can: nothing awaits in between) would get 503, never an app without its origin.
  let app: ReturnType<typeof createConsoleApp> | undefined;
  const server = await new Promise<ReturnType<typeof serve>>((res, rej) => {
    const s = serve(
      {
        fetch: (req, env) => (app ? app.fetch(req, env) : new Response("starting", { status: 503 })),
        hostname: LOOPBACK,
        port: opts.port ?? DEFAULT_CONSOLE_PORT,
      },
      () => res(s),
    );
    s.once("error", rej);
  });
  const url = `http://${LOOPBACK}:${(server.address() as AddressInfo).port}`;
  app = createConsoleApp(deps, signIn, { origin: url });
  return {
    url,
    signIn,
    link: (who) => signIn.mintLink(url, who ?? operator),
    stop: () =>
      new Promise<void>((res) => {
        server.close(() => res());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
