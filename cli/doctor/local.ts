import { existsSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { AgentItem, McpServerItem, WebhookItem } from "../../shared/admin/index.ts";
import { makeDynamoClient } from "../../shared/aws/index.ts";
import { ConfigError, type LoadedConfig, loadConfigFile } from "../../shared/config/index.ts";
import { silentLogger } from "../../shared/logger.ts";
import { listServerTools, mcpConnector, mcpSecretLookup } from "../../shared/mcp/index.ts";
import { systemResolver } from "../../shared/net/index.ts";
import { AdminRepo } from "../../shared/store/index.ts";
import { DEMO_CONFIG_FILE } from "../local/demo.ts";
import { modelReadiness } from "../local/model-readiness.ts";
import { localSecretSource } from "../local/secrets-file.ts";
import { liveStackFile, type StackFile } from "../local/stack-file.ts";
import { type DoctorCheck, fail, ok, skipped } from "./report.ts";

/**
 * `postern doctor` on this machine, with no AWS: the local stack and the config it runs, each agent's domain and
 * model, every catalog model (a one-token call, or the script file), every MCP server (its tools listed) and every
 * webhook endpoint (reachable, and the loopback switch when it is on this machine). Each finding carries its fix.
 */
export interface LocalDoctorInput {
  /** The stack's state directory (`.postern`). */
  readonly dir: string;
  /** Where `postern.config.json` is looked for. */
  readonly cwd: string;
  /** `--config`: the config to check instead of the one here. */
  readonly config?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly fetch?: typeof fetch;
  /** Per request (model calls, webhook probes). Default 5 s. */
  readonly timeoutMs?: number;
}

const RESTART = "restart the stack: Ctrl-C in its terminal, then `npm start`";
const LOOPBACK = /^(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

export async function runLocalDoctor(input: LocalDoctorInput): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const show = (p: string) => {
    const r = relative(input.cwd, p);
    return r && !r.startsWith("..") ? r : p;
  };
  const stack = liveStackFile(join(input.dir, "stack.json"));
  checks.push(
    stack
      ? ok("local stack", `running from ${show(input.dir)} (pid ${stack.pid}, started ${stack.startedAt})`)
      : fail(
          "local stack",
          `no stack runs from ${show(input.dir)}`,
          "`npm start` in this folder (or `postern start --dir DIR`), then run the doctor again",
        ),
  );

  const onDisk = configOnDisk(input);
  let loaded: LoadedConfig | undefined;
  if (!onDisk) {
    checks.push(
      fail(
        "config",
        `no postern.config.json here and no demo config in ${show(input.dir)}`,
        "`npm start` writes the demo config; or copy postern.config.example.json to postern.config.json",
      ),
    );
  } else {
    try {
      loaded = loadConfigFile(onDisk);
      checks.push(configCheck(onDisk, stack, show));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      checks.push(fail("config", err.message.replace(/\n\s*/g, " "), `fix ${show(onDisk)}, then ${RESTART}`));
    }
  }
  if (!loaded) return checks;

  for (const m of loaded.config.models) {
    const r = await modelReadiness(m, {
      depth: "call",
      baseDir: loaded.baseDir,
      configFile: show(onDisk ?? ""),
      ...(input.env ? { env: input.env } : {}),
      ...(input.fetch ? { fetch: input.fetch } : {}),
      timeoutMs: input.timeoutMs ?? 5000,
    });
    const name = `model ${m.id}`;
    checks.push(r.status === "ok" ? ok(name, r.detail) : { check: name, ...r });
  }

  if (!stack) {
    for (const what of ["agents", "mcp servers", "webhooks"])
      checks.push(
        skipped(what, "read from the running stack's tables", "`npm start`, then run the doctor again"),
      );
    return checks;
  }
  const dynamo = makeDynamoClient(stack.resources);
  try {
    const repo = new AdminRepo({ dynamo, tables: stack.resources.tables, logger: silentLogger });
    const [agents, servers, hooks] = await Promise.all([
      repo.listAgents(),
      repo.listMcpServers(),
      repo.listWebhooks(),
    ]);
    checks.push(...agentChecks(agents, loaded, show(onDisk ?? "")));
    for (const s of servers) checks.push(await mcpCheck(s, input.dir, input.env));
    for (const h of hooks) checks.push(await webhookCheck(h, stack, input));
    if (agents.length === 0)
      checks.push(
        fail(
          "agents",
          "no agent in the stack's tables: no mail is answered",
          "`npx postern agents add --address <agent>@<domain> --name <name> --model <id>`",
        ),
      );
  } finally {
    dynamo.destroy();
  }
  return checks;
}

/** `--config`, else postern.config.json here, else the demo config `npm start` writes without one. */
function configOnDisk(input: LocalDoctorInput): string | undefined {
  if (input.config) return resolve(input.cwd, input.config);
  const here = join(input.cwd, "postern.config.json");
  if (existsSync(here)) return here;
  const demo = join(input.dir, DEMO_CONFIG_FILE);
  return existsSync(demo) ? demo : undefined;
}

/** The stack runs the config on disk: the same file, not changed since the stack started (it reads it once). */
function configCheck(onDisk: string, stack: StackFile | undefined, show: (p: string) => string): DoctorCheck {
  if (!stack) return ok("config", `${show(onDisk)} is valid`);
  if (stack.configFile && resolve(stack.configFile) !== onDisk)
    return fail(
      "config",
      `the stack runs ${show(stack.configFile)}, but ${show(onDisk)} is the config here`,
      RESTART,
    );
  const changed = statSync(onDisk).mtime;
  if (changed.getTime() > Date.parse(stack.startedAt))
    return fail(
      "config",
      `${show(onDisk)} changed at ${changed.toISOString()}, after the stack started (${stack.startedAt}); the stack still runs the old one`,
      RESTART,
    );
  return ok("config", `the stack runs ${show(onDisk)}, unchanged since it started`);
}

function agentChecks(agents: readonly AgentItem[], loaded: LoadedConfig, file: string): DoctorCheck[] {
  const { domains, models } = loaded.config;
  return agents.map((a) => {
    const name = `agent ${a.address}`;
    const domain = a.address.slice(a.address.lastIndexOf("@") + 1);
    if (!domains.includes(domain))
      return fail(
        name,
        `domain ${domain} is not registered in ${file} (domains: ${domains.join(", ")}): its mail is refused at RCPT`,
        `add "${domain}" to "domains" in ${file} and ${RESTART}`,
      );
    if (!models.some((m) => m.id === a.model))
      return fail(
        name,
        `model ${a.model} is not in ${file}'s catalog (${models.map((m) => m.id).join(", ")})`,
        `add it to "models" in ${file}, or \`npx postern agents add --replace --address ${a.address} --name ${JSON.stringify(a.name)} --model <id>\``,
      );
    return ok(
      name,
      `domain ${domain} registered, model ${a.model}${a.enabled === false ? " (disabled)" : ""}`,
    );
  });
}

async function mcpCheck(server: McpServerItem, dir: string, env?: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const name = `mcp ${server.id}`;
  // As the local stack reaches it: stdio and loopback servers allowed (they cannot be used in AWS).
  const r = await listServerTools(
    mcpConnector({
      resolve: systemResolver,
      // The stack's own secrets file, as the local stack reads it (`postern secrets set`), then the deprecated env vars.
      secret: mcpSecretLookup(localSecretSource(dir, env)),
      local: { allowStdio: true, allowLoopback: true },
    }),
    server,
  );
  if (!r.ok)
    return fail(
      name,
      r.detail,
      `start the server (${server.url ?? server.command}), or \`npx postern mcp remove ${server.id}\``,
    );
  return ok(name, `${r.tools.length} tools listed, ${server.tools.length} reviewed and offered`);
}

async function webhookCheck(
  hook: WebhookItem,
  stack: StackFile,
  input: LocalDoctorInput,
): Promise<DoctorCheck> {
  const name = `webhook ${hook.id}`;
  if (hook.enabled === false) return ok(name, `${hook.url} (disabled: nothing is sent)`);
  const url = new URL(hook.url);
  if (LOOPBACK.test(url.hostname) && !stack.webhookLoopback)
    return fail(
      name,
      `${hook.url} is on this machine, and the stack was started without POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1: every delivery to it is refused`,
      "stop the stack, then `POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1 npm start`",
    );
  try {
    // Any HTTP answer means a receiver is there; deliveries are signed POSTs, which this probe does not send.
    await (input.fetch ?? fetch)(hook.url, {
      method: "HEAD",
      signal: AbortSignal.timeout(input.timeoutMs ?? 5000),
    });
    return ok(name, `${hook.url} answers`);
  } catch (err) {
    const e = err as { name?: string; message?: string; cause?: { code?: string } };
    return fail(
      name,
      `nothing answers at ${hook.url} (${e.name === "TimeoutError" ? "timed out" : (e.cause?.code ?? e.message)})`,
      `start the receiver, or \`npx postern webhooks remove ${hook.id}\``,
    );
  }
}
