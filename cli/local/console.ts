import type { Logger } from "../../shared/logger.ts";
import type { LocalStack } from "./stack.ts";

/**
 * The operator console on a running local stack (`npm start`): 127.0.0.1 only, one-time sign-in link printed.
 * Loaded lazily so the CLI's other commands do not pay for it.
 */
export async function startStackConsole(
  stack: LocalStack,
  opts: { port: number; email: string; logger: Logger },
): Promise<{ banner: string; link(): string; stop(): Promise<void> }> {
  const { startLocalConsole } = await import("../../console/server.ts");
  const app = await startLocalConsole({
    clients: stack.clients,
    resources: stack.resources,
    config: stack.config.config,
    logger: opts.logger,
    port: opts.port,
    operatorEmail: opts.email,
  });
  const banner = [
    "",
    `Operator console             ${app.url}  (this machine only)`,
    `  sign in once with:         ${app.link()}`,
    `  signed in as ${opts.email} (admins); the link works once, for 10 minutes`,
  ].join("\n");
  return { banner, link: () => app.link(), stop: () => app.stop() };
}
