import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { AwsClients } from "../../shared/aws/clients.ts";
import type { Resources } from "../../shared/config/resources.ts";
import type { Logger } from "../../shared/logger.ts";
import { AdminRepo } from "../../shared/store/admin-repo.ts";

/**
 * A newcomer's first `npm start` with nothing configured: a demo domain, one agent on the scripted `demo` model
 * that answers with send_email, and a dev signing key for the domain. Only used when `postern.config.json` does
 * not exist; an operator's own config is never touched.
 */
export const DEMO_DOMAIN = "demo.postern.test";
export const DEMO_AGENT = `helpdesk@${DEMO_DOMAIN}`;
/** A sender domain for `postern dev send`: any domain works, dev send makes its key on first use. */
export const DEMO_SENDER = "you@sender.postern.test";
export const DEMO_CONFIG_FILE = "demo.config.json";
export const DEMO_SCRIPT_FILE = "demo-script.json";

export const DEMO_CONFIG = {
  domains: [DEMO_DOMAIN],
  inboundAccess: [],
  recursionLimit: 50,
  maxToolTurns: 8,
  models: [{ id: "demo", provider: "scripted", script: DEMO_SCRIPT_FILE, egress: "internal" }],
  defaultModel: "demo",
} as const;

/** The scripted model's turns (issue 4's script shape): reply once, then stop. */
export const DEMO_SCRIPT = {
  turns: [
    {
      toolCalls: [
        {
          name: "send_email",
          input: {
            mode: "reply",
            body: "Hello! This is the Postern demo agent. Your mail passed sender proof and reached me; this reply was written by a scripted model. Point me at a real model in postern.config.json.",
          },
        },
      ],
    },
    { text: "done" },
  ],
} as const;

/** Write `<dir>/demo.config.json` and `<dir>/demo-script.json` unless present (an edited script is kept). */
export function ensureDemoFiles(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, DEMO_CONFIG_FILE);
  if (!existsSync(configPath)) writeFileSync(configPath, `${JSON.stringify(DEMO_CONFIG, null, 2)}\n`);
  const scriptPath = join(dir, DEMO_SCRIPT_FILE);
  if (!existsSync(scriptPath)) writeFileSync(scriptPath, `${JSON.stringify(DEMO_SCRIPT, null, 2)}\n`);
  return configPath;
}

/**
 * Seed the demo agent when the agents table is empty. Emptiness is checked on raw items: an invalid item is
 * still an operator's, so it blocks seeding rather than being papered over.
 */
export async function seedDemoAgent(
  clients: AwsClients,
  resources: Resources,
  logger: Logger,
): Promise<boolean> {
  const existing = await clients.dynamo.send(
    new ScanCommand({ TableName: resources.tables.agents, Limit: 1 }),
  );
  if ((existing.Items ?? []).length > 0) return false;
  const repo = new AdminRepo({ dynamo: clients.dynamo, tables: resources.tables, logger });
  const r = await repo.putAgent(
    {
      address: DEMO_AGENT,
      name: "Postern demo helpdesk",
      model: "demo",
      instructions: "You are the Postern demo agent. Answer every mail once, briefly.",
    },
    { ifAbsent: true },
  );
  if (!r.ok) throw new Error(`could not seed the demo agent: ${r.reason}`);
  return r.created;
}
