import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "../../shared/logger.ts";
import { fileSecretStore } from "../../shared/webhooks/index.ts";
import { removeConsoleFile, writeConsoleFile } from "./console-file.ts";
import { localSecretSource, localSecretsFile } from "./secrets-file.ts";
import type { LocalStack } from "./stack.ts";

/**
 * The operator console on a running local stack (`npm start`): 127.0.0.1 only, a one-time sign-in link printed,
 * and `<dir>/console.json` written so `postern console link` can mint a fresh one while the stack runs.
 * Loaded lazily so the CLI's other commands do not pay for it.
 */
export async function startStackConsole(
  stack: LocalStack,
  opts: { port: number; email: string; logger: Logger },
): Promise<{ banner: string; link(): string; stop(): Promise<void> }> {
  const { startLocalConsole } = await import("../../console/server.ts");
  const linkKey = randomBytes(32);
  const app = await startLocalConsole({
    clients: stack.clients,
    resources: stack.resources,
    config: stack.config.config,
    logger: opts.logger,
    port: opts.port,
    operatorEmail: opts.email,
    linkKey,
    // Where `postern webhooks add` and the events worker keep signing secrets locally (G16).
    webhookSecrets: fileSecretStore(localSecretsFile(stack.dir)),
    // MCP credentials as the local stack reads them: `secretsmanager:postern/...` from the same file.
    mcpSecrets: localSecretSource(stack.dir),
    webhookLoopback: stack.webhookLoopback,
    configFile: stack.configFile,
  });
  const file = join(stack.dir, "console.json");
  writeConsoleFile(file, {
    pid: process.pid,
    url: app.url,
    email: opts.email.toLowerCase(),
    linkKey: linkKey.toString("base64url"),
  });
  const banner = [
    "",
    `Operator console             ${app.url}  (this machine only)`,
    `  sign in once with:         ${app.link()}`,
    `  signed in as ${opts.email} (admins); the link works once, for 10 minutes`,
    "  a fresh link any time:     npx postern console link",
  ].join("\n");
  return {
    banner,
    link: () => app.link(),
    stop: async () => {
      removeConsoleFile(file);
      await app.stop();
    },
  };
}
