import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { AwsClients } from "../shared/aws/clients.ts";
import type { Resources } from "../shared/config/resources.ts";
import type { DeploymentConfig } from "../shared/config/schema.ts";
import type { Logger } from "../shared/logger.ts";
import type { ToolRegistry } from "../shared/tool-framework/registry.ts";
import { defaultRegistry } from "../tools/index.ts";
import { createConsoleApp } from "./app.ts";
import { LOCAL_ADMIN, type LocalOperator, type LocalSignIn, localSignIn } from "./auth/local-sign-in.ts";
import { consoleDeps } from "./deps.ts";

/** The console's local port (0 picks a free one). */
export const DEFAULT_CONSOLE_PORT = 4570;
/** The local operator's identity: an admin; make it an approver to apply plans from the console. */
export const DEFAULT_CONSOLE_EMAIL = "operator@localhost";

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
 * only to the loopback host names, with one-time sign-in links instead of Cognito.
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
}): Promise<LocalConsole> {
  const operator = LOCAL_ADMIN((opts.operatorEmail ?? DEFAULT_CONSOLE_EMAIL).toLowerCase());
  const signIn = localSignIn({
    operator,
    sessionMinutes: opts.config.console.sessionMinutes,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const deps = consoleDeps({
    clients: opts.clients,
    resources: opts.resources,
    config: opts.config,
    registry: opts.registry ?? defaultRegistry(),
    logger: opts.logger,
    ...(opts.now ? { now: opts.now } : {}),
  });
  // Filled once the port is known; the app reads it on every request.
  const allowedHosts: string[] = [];
  const app = createConsoleApp(deps, signIn, { allowedHosts });
  const server = await new Promise<ReturnType<typeof serve>>((res, rej) => {
    const s = serve(
      { fetch: app.fetch, hostname: "127.0.0.1", port: opts.port ?? DEFAULT_CONSOLE_PORT },
      () => res(s),
    );
    s.once("error", rej);
  });
  const port = (server.address() as AddressInfo).port;
  allowedHosts.push(`127.0.0.1:${port}`, `localhost:${port}`);
  const url = `http://127.0.0.1:${port}`;
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
