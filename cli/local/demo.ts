import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { AdminCatalog, AdminIssue } from "../../shared/admin/index.ts";
import type { AwsClients } from "../../shared/aws/index.ts";
import type { Resources } from "../../shared/config/index.ts";
import { PosternError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import { AdminRepo, DEFAULT_TOOLKIT } from "../../shared/store/index.ts";

/**
 * A newcomer's first `npm start` with nothing configured: a demo domain, a dev signing key for it, and two agents
 * on scripted models: the helpdesk answers with send_email; the refund desk proposes a refund (a confirm tool,
 * G14) whose approver is the console's local operator, so the approval flow works out of the box. Only
 * used when `postern.config.json` does not exist; an operator's own config is never touched.
 */
export const DEMO_DOMAIN = "demo.postern.test";
export const DEMO_AGENT = `helpdesk@${DEMO_DOMAIN}`;
/** The demo agent holding a confirm-class tool (issue_refund): its plans wait for the console operator. */
export const DEMO_REFUNDS_AGENT = `refunds@${DEMO_DOMAIN}`;
export const DEMO_REFUNDS_TOOLKIT = "demo-refunds";
/**
 * The local console operator's default address (console/server.ts DEFAULT_CONSOLE_EMAIL, `start --console-email`)
 * and the demo's approver. A `.test` address the outbound accepts (a dotted, letter-only top-level name), so its
 * confirm cards land in the capture outbox: `operator@localhost` was refused as recipient-invalid.
 */
export const DEMO_OPERATOR = "operator@postern.test";
/** A sender domain for `postern dev send`: any domain works, dev send makes its key on first use. */
export const DEMO_SENDER = "you@sender.postern.test";
export const DEMO_CONFIG_FILE = "demo.config.json";
export const DEMO_SCRIPT_FILE = "demo-script.json";
export const DEMO_REFUNDS_SCRIPT_FILE = "demo-refunds-script.json";

const DEMO_MODELS = [
  { id: "demo", provider: "scripted", script: DEMO_SCRIPT_FILE, egress: "internal" },
  { id: "demo-refunds", provider: "scripted", script: DEMO_REFUNDS_SCRIPT_FILE, egress: "internal" },
] as const;

export const DEMO_CONFIG = {
  domains: [DEMO_DOMAIN],
  inboundAccess: [],
  recursionLimit: 50,
  maxRounds: 8,
  models: DEMO_MODELS,
  defaultModel: "demo",
} as const;

/** The scripted model's turns (the scripted provider's script shape): reply once, then stop. */
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

/**
 * The refund desk's script (the order is the demo sender's own, tools/orders.ts): round 1 proposes a refund and
 * says so; once an approver approves the plan, the continuation (two assistant turns in) tells the sender what the
 * apply did: issued, or not (a sender whose order it is not gets `order-not-found`, and hears that nothing was refunded).
 */
export const DEMO_REFUNDS_SCRIPT = {
  turns: [
    {
      toolCalls: [
        {
          name: "issue_refund",
          input: { order: "A-1001", amountCents: 4599, reason: "the customer asked for a refund" },
        },
        {
          name: "send_email",
          input: {
            mode: "reply",
            body: "I have proposed a refund of order A-1001. It runs only once an approver confirms it: the operator has been sent a confirm card.",
          },
        },
      ],
    },
    { text: "proposed" },
    {
      // The engine's outcome line chooses the words (shared/model/script.ts `cases`): an approval is not a refund,
      // so "issued" is said only when the apply succeeded. The default claims nothing either way.
      toolCalls: [
        {
          name: "send_email",
          input: {
            mode: "reply",
            body: "Your refund request for order A-1001 has been decided by an approver; the operator can tell you the outcome.",
          },
        },
      ],
      cases: [
        {
          whenLastTurnStartsWith: "Plan outcome: applied.",
          turn: {
            toolCalls: [
              {
                name: "send_email",
                input: { mode: "reply", body: "Your refund of order A-1001 has been approved and issued." },
              },
            ],
          },
        },
        {
          whenLastTurnStartsWith: "Plan outcome: failed",
          turn: {
            toolCalls: [
              {
                name: "send_email",
                input: {
                  mode: "reply",
                  body: "Your refund of order A-1001 was approved, but it could not be issued: nothing was refunded. The operator has been told.",
                },
              },
            ],
          },
        },
      ],
    },
    { text: "done" },
  ],
} as const;

/**
 * The refund desk's script as `npm start` wrote it before the outcome decided the words: it told the sender "approved
 * and issued" whatever the apply did. A `.postern` holding exactly this (never edited) is given the current script.
 */
export const DEMO_REFUNDS_SCRIPT_BEFORE_OUTCOMES = {
  turns: [
    DEMO_REFUNDS_SCRIPT.turns[0],
    DEMO_REFUNDS_SCRIPT.turns[1],
    {
      toolCalls: [
        {
          name: "send_email",
          input: { mode: "reply", body: "Your refund of order A-1001 has been approved and issued." },
        },
      ],
    },
    { text: "done" },
  ],
} as const;

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/**
 * Write `<dir>/demo.config.json` and the demo model scripts unless present (an edited script is kept). A demo
 * config from before a demo model existed gains that model, nothing else changed, so an old `.postern` still
 * starts the current demo.
 */
export function ensureDemoFiles(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, DEMO_CONFIG_FILE);
  if (!existsSync(configPath)) writeFileSync(configPath, json(DEMO_CONFIG));
  else addMissingDemoModels(configPath);
  for (const [file, script] of [
    [DEMO_SCRIPT_FILE, DEMO_SCRIPT],
    [DEMO_REFUNDS_SCRIPT_FILE, DEMO_REFUNDS_SCRIPT],
  ] as const) {
    const path = join(dir, file);
    if (!existsSync(path)) writeFileSync(path, json(script));
  }
  // Replaced only when byte for byte what an earlier start wrote: an operator's edit is theirs to keep.
  const refunds = join(dir, DEMO_REFUNDS_SCRIPT_FILE);
  if (readFileSync(refunds, "utf8") === json(DEMO_REFUNDS_SCRIPT_BEFORE_OUTCOMES))
    writeFileSync(refunds, json(DEMO_REFUNDS_SCRIPT));
  return configPath;
}

function addMissingDemoModels(configPath: string): void {
  let config: { models?: unknown };
  try {
    config = JSON.parse(readFileSync(configPath, "utf8")) as { models?: unknown };
  } catch {
    return; // not ours to repair: loading it reports what is wrong
  }
  if (!Array.isArray(config.models)) return;
  const ids = new Set(config.models.map((m) => (m as { id?: unknown })?.id));
  const missing = DEMO_MODELS.filter((m) => !ids.has(m.id));
  if (missing.length) writeFileSync(configPath, json({ ...config, models: [...config.models, ...missing] }));
}

/**
 * The demo's admin state: both agents with the default toolkit, the refund desk's confirm tool, and the console
 * operator as its approver (the address the local console signs in as, which the capture outbox delivers to).
 */
export function demoAdminDocument(operator: string) {
  return {
    agents: [
      {
        address: DEMO_AGENT,
        name: "Postern demo helpdesk",
        model: "demo",
        instructions: "You are the Postern demo agent. Answer every mail once, briefly.",
      },
      {
        address: DEMO_REFUNDS_AGENT,
        name: "Postern demo refunds",
        model: "demo-refunds",
        instructions:
          "You handle refund requests. Propose refunds with issue_refund; an approver confirms them.",
      },
    ],
    toolkits: [
      {
        ...DEFAULT_TOOLKIT,
        tools: [...DEFAULT_TOOLKIT.tools],
        agents: [DEMO_AGENT, DEMO_REFUNDS_AGENT],
        system: true,
      },
      {
        id: DEMO_REFUNDS_TOOLKIT,
        name: "Refunds (demo)",
        tools: ["issue_refund"],
        agents: [DEMO_REFUNDS_AGENT],
      },
    ],
    approvers: [{ toolkit: DEMO_REFUNDS_TOOLKIT, address: operator }],
  };
}

export type DemoSeed =
  | { readonly seeded: false }
  | { readonly seeded: true; readonly approverRefused?: readonly AdminIssue[] };

/**
 * Seed the demo when the agents table is empty, through the same write check as every admin write. Emptiness is
 * checked on raw items: an invalid item is still an operator's, so it blocks seeding rather than being papered
 * over. An operator address no confirm card can reach (`--console-email me@localhost`) is not made the approver:
 * the rest is seeded, and the refusal is returned for the start banner to show.
 */
export async function seedDemo(
  clients: AwsClients,
  resources: Resources,
  logger: Logger,
  opts: { readonly operator: string; readonly catalog: AdminCatalog },
): Promise<DemoSeed> {
  const existing = await clients.dynamo.send(
    new ScanCommand({ TableName: resources.tables.agents, Limit: 1 }),
  );
  if ((existing.Items ?? []).length > 0) return { seeded: false };
  const repo = new AdminRepo({ dynamo: clients.dynamo, tables: resources.tables, logger });
  const doc = demoAdminDocument(opts.operator);
  const r = await repo.importDocument(doc, { catalog: opts.catalog });
  if (r.ok) return { seeded: true };
  const approverRefused = r.issues.filter((i) => i.path.startsWith("approvers["));
  if (approverRefused.length === r.issues.length) {
    const without = await repo.importDocument({ ...doc, approvers: [] }, { catalog: opts.catalog });
    if (without.ok) return { seeded: true, approverRefused };
  }
  throw new PosternError(
    "invariant-broken",
    `could not seed the demo: ${r.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
  );
}
