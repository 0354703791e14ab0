import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { pipelineHandlers } from "../../cli/local/pipeline.ts";
import { localSecretsFile } from "../../cli/local/secrets-file.ts";
import { type LocalStack, startLocalStack } from "../../cli/local/stack.ts";
import { GROUPS, type Group } from "../../console/auth/principal.ts";
import { type LocalConsole, startLocalConsole } from "../../console/server.ts";
import { makeClients } from "../../shared/aws/clients.ts";
import type { CallObserver } from "../../shared/aws/observe.ts";
import type { SecretSource } from "../../shared/secrets/index.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { builtinTools } from "../../shared/tool-framework/builtin/index.ts";
import { ToolRegistry } from "../../shared/tool-framework/registry.ts";
import { type DeliveryPolicy, fileSecretStore, type SecretStore } from "../../shared/webhooks/index.ts";
import { demoOrderBackend, orderTools } from "../../tools/orders.ts";
import { recordingLogger as recorder } from "../fakes/recording-logger.ts";
import { quietLogger } from "../helpers/pipeline-stack.ts";

export const DOMAIN = "agents.example.net";
export const HELPDESK = `helpdesk@${DOMAIN}`;
export const SHOP = `shop@${DOMAIN}`;
export const APPROVER = "boss@approvers.example";
export const ADMIN = "admin@operators.example";
export const VIEWER = "viewer@operators.example";

export interface ConsoleStack {
  readonly stack: LocalStack;
  readonly dir: string;
  readonly console: LocalConsole;
  readonly stores: Stores;
}

/**
 * The whole local pipeline plus the console on it: `helpdesk` answers every mail (model `reply`), `shop` proposes a
 * refund that needs an approver (model `refund`), then answers once the plan is applied.
 */
export async function startConsoleStack(
  opts: {
    observeConsole?: CallObserver;
    /** The console's webhook secret store; default the stack's secrets file, as `npm start` wires it. */
    webhookSecrets?: SecretStore;
    /** Where the console resolves MCP secret references; default the environment. */
    mcpSecrets?: SecretSource;
    /** The events worker may reach a receiver on loopback (http), with this retry policy. */
    webhookLoopback?: boolean;
    webhookPolicy?: DeliveryPolicy;
    /** The console's logger (a test reads its lines). */
    logger?: ReturnType<typeof recorder>;
  } = {},
): Promise<ConsoleStack> {
  const registry = new ToolRegistry([...builtinTools(), ...orderTools(demoOrderBackend())]);
  const dir = mkdtempSync(join(tmpdir(), "postern-console-"));
  const files: Record<string, unknown> = {
    "postern.config.json": {
      domains: [DOMAIN],
      models: [
        { id: "reply", provider: "scripted", script: "reply.json", egress: "internal" },
        { id: "refund", provider: "scripted", script: "refund.json", egress: "internal" },
      ],
    },
    "reply.json": {
      turns: [
        { toolCalls: [{ name: "send_email", input: { mode: "reply", body: "Thanks, we got your mail." } }] },
        { text: "done" },
      ],
    },
    "refund.json": {
      turns: [
        {
          toolCalls: [
            { name: "issue_refund", input: { order: "A-1002", amountCents: 2000, reason: "arrived broken" } },
          ],
        },
        { text: "proposed" },
        {
          toolCalls: [{ name: "send_email", input: { mode: "reply", body: "Your refund has been issued." } }],
        },
        { text: "done" },
      ],
    },
  };
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), JSON.stringify(content));
  const stack = await startLocalStack({
    dir,
    configPath: join(dir, "postern.config.json"),
    smtpPort: 0,
    waitTimeSeconds: 1,
    handlers: (ctx) => pipelineHandlers(ctx, quietLogger, registry),
    ...(opts.webhookLoopback ? { webhookLoopback: true } : {}),
    ...(opts.webhookPolicy ? { webhookPolicy: opts.webhookPolicy } : {}),
  });
  const stores = makeStores(stack.clients, stack.resources, recorder());
  await stores.admin.putAgent({ address: HELPDESK, name: "Helpdesk", model: "reply" });
  await stores.admin.putAgent({ address: SHOP, name: "Shop", model: "refund" });
  await stores.admin.putToolkit({ id: "refunds", tools: ["issue_refund"], agents: [SHOP] });
  await stores.admin.putApprover({ toolkit: "refunds", address: APPROVER });
  const console = await startLocalConsole({
    // The console's own clients, so a test can see exactly the AWS calls the console makes.
    clients: opts.observeConsole ? makeClients(stack.resources, opts.observeConsole) : stack.clients,
    resources: stack.resources,
    config: stack.config.config,
    logger: opts.logger ?? recorder(),
    port: 0,
    operatorEmail: ADMIN,
    registry,
    webhookSecrets: opts.webhookSecrets ?? fileSecretStore(localSecretsFile(stack.dir)),
    ...(opts.mcpSecrets ? { mcpSecrets: opts.mcpSecrets } : {}),
    webhookLoopback: opts.webhookLoopback === true,
  });
  return { stack, dir, console, stores };
}

export function stopAfterAll(get: () => ConsoleStack | undefined): void {
  afterAll(async () => {
    const s = get();
    await s?.console.stop();
    await s?.stack.stop();
  });
}

export const who = (email: string, ...groups: Group[]) => ({
  email,
  groups: groups.length ? groups : [GROUPS.viewers],
});

/** A cookie-keeping HTTP client for the console (what a browser does, minus rendering). */
export class ConsoleClient {
  cookie = "";
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  async signIn(link: string): Promise<Response> {
    const r = await fetch(link, { redirect: "manual" });
    const set = r.headers.get("set-cookie");
    if (set) this.cookie = set.split(";")[0] ?? "";
    return r;
  }

  get(path: string): Promise<Response> {
    return fetch(`${this.base}${path}`, {
      redirect: "manual",
      headers: this.cookie ? { cookie: this.cookie } : {},
    });
  }

  async post(
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(`${this.base}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: this.base,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...headers,
      },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** The CSRF token the console put in its forms on `path`. */
  async csrf(path = "/admin"): Promise<string> {
    const text = await (await this.get(path)).text();
    const m = /name="_csrf" value="([^"]+)"/.exec(text);
    if (!m?.[1]) throw new Error(`no CSRF token on ${path}`);
    return m[1];
  }
}
