import type { Logger } from "../logger.ts";
import type { Item } from "../ports/index.ts";
import { type Fail, failWith } from "../result.ts";
import type { AdminCatalog } from "./catalog.ts";
import { checkDocument, type DocumentCheck } from "./document.ts";
import type { AdminIssue } from "./issues.ts";
import type { McpServerItem } from "./mcp-server-item.ts";
import {
  type AdminTable,
  readAccessRules,
  readAgents,
  readApprovers,
  readMcpServers,
  readOutboundRules,
  readResponsibilities,
  readToolkits,
  readWebhooks,
  ruleKey,
} from "./read.ts";
import type { AdminDocument, AdminSnapshot, AgentItem, ResponsibilityItem, ToolkitItem } from "./schema.ts";
import type { WebhookItem } from "./webhook-item.ts";

/** What import/export needs from the admin tables: the store's AdminRepo implements it. */
export interface AdminTables {
  readonly logger: Logger;
  snapshot(): Promise<AdminSnapshot>;
  rawItems(table: AdminTable): Promise<Item[]>;
  rawPut(table: AdminTable, item: Item, ifAbsentOn?: string): Promise<boolean | "duplicate">;
  rawDelete(table: AdminTable, key: Item): Promise<boolean>;
}

/** One item written through its schema: the item as stored, or why not. */
export type AdminWriteResult<T> =
  | { readonly ok: true; readonly item: T; readonly created: boolean }
  | Fail<"invalid", { readonly issues: AdminIssue[] }>
  | Fail<"duplicate">;

export interface PutOptions {
  /** Refuse to overwrite an existing item (`reason: "duplicate"`). */
  readonly ifAbsent?: boolean;
}

/** Webhook endpoints item by item: what registering, rotating and removing one uses (shared/webhooks). */
export interface WebhookTable {
  listWebhooks(): Promise<WebhookItem[]>;
  getWebhook(id: string): Promise<WebhookItem | null>;
  putWebhook(input: unknown, opts?: PutOptions): Promise<AdminWriteResult<WebhookItem>>;
  deleteWebhook(id: string): Promise<boolean>;
}

/**
 * The admin tables as the console reads and edits them item by item, beside the document import it shares with
 * the CLI: the store's AdminRepo implements it. A removal with `cascade` takes what depends on the item with it.
 */
export interface AdminEditor extends AdminTables, WebhookTable {
  listAgents(): Promise<AgentItem[]>;
  getAgent(address: string): Promise<AgentItem | null>;
  getToolkit(id: string): Promise<ToolkitItem | null>;
  listResponsibilities(): Promise<ResponsibilityItem[]>;
  listMcpServers(): Promise<McpServerItem[]>;
  deleteMcpServer(id: string): Promise<boolean>;
  /** The stored item as it is, valid or not (an edit form shows what is there). */
  rawGet(table: AdminTable, key: Item): Promise<Item | null>;
  deleteAgent(address: string, opts?: { cascade?: boolean }): Promise<boolean>;
  deleteToolkit(id: string, opts?: { cascade?: boolean }): Promise<boolean>;
  deleteResponsibility(id: string): Promise<boolean>;
  deleteApprover(toolkit: string, address: string): Promise<boolean>;
}

export type ImportResult =
  | { readonly ok: true; readonly written: number; readonly deleted: number }
  | Fail<"invalid-document", { readonly issues: AdminIssue[] }>;

const byText =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/** The whole admin state as one document: validated items only, in a stable order (diffable, round-trips). */
export async function exportAdminDocument(repo: AdminTables): Promise<AdminDocument> {
  const s = await repo.snapshot();
  return {
    agents: [...s.agents].sort(byText((a) => a.address)),
    accessRules: [...s.accessRules].sort(byText((r) => `${r.agent} ${r.effect} ${r.pattern}`)),
    outboundRules: [...s.outboundRules].sort(byText((r) => `${r.agent} ${r.effect} ${r.pattern}`)),
    toolkits: [...s.toolkits].sort(byText((t) => t.id)),
    responsibilities: [...s.responsibilities].sort(byText((r) => r.id)),
    approvers: [...s.approvers].sort(byText((a) => `${a.toolkit} ${a.address}`)),
    webhooks: [...s.webhooks].sort(byText((w) => w.id)),
    mcpServers: [...s.mcpServers].sort(byText((m) => m.id)),
  };
}

export interface WriteOptions {
  /** What the deployment offers (domains, models, tools): every write is checked against it. */
  readonly catalog: AdminCatalog;
  /** Also delete the stored items the document does not hold (`admin import --replace`). */
  readonly replace?: boolean;
}

/**
 * Check a write against the deployment and the stored admin state, without writing: the one check the
 * CLI's commands, `admin import` and the console all make. The state is read from the tables, not from a cached
 * snapshot: a write must not be checked against a state another writer has already changed.
 */
export async function checkAdminWrite(
  repo: Pick<AdminTables, "rawItems" | "logger">,
  input: unknown,
  opts: WriteOptions,
): Promise<DocumentCheck> {
  return checkDocument(input, {
    catalog: opts.catalog,
    stored: await storedState(repo),
    replace: opts.replace === true,
  });
}

async function storedState(repo: Pick<AdminTables, "rawItems" | "logger">): Promise<AdminSnapshot> {
  const [agents, accessRules, outboundRules, toolkits, responsibilities, approvers, webhooks, mcpServers] =
    await Promise.all(
      (
        [
          "agents",
          "accessRules",
          "outboundRules",
          "toolkits",
          "responsibilities",
          "approvers",
          "webhooks",
          "mcpServers",
        ] as const
      ).map((t) => repo.rawItems(t)),
    );
  const log = repo.logger;
  return {
    agents: readAgents(agents ?? [], log),
    accessRules: readAccessRules(accessRules ?? [], log),
    outboundRules: readOutboundRules(outboundRules ?? [], log),
    toolkits: readToolkits(toolkits ?? [], log),
    responsibilities: readResponsibilities(responsibilities ?? [], log),
    approvers: readApprovers(approvers ?? [], log),
    webhooks: readWebhooks(webhooks ?? [], log),
    mcpServers: readMcpServers(mcpServers ?? [], log),
  };
}

/**
 * Write a whole document. Validated in full first: nothing is written if any item is invalid. There are no
 * transactions (dynalite has none), so the write order keeps every intermediate state at most as open as the
 * start or the end state: rules before agents (an agent with no allow rule yet is open to every sender under
 * G3's layer default, so its rules must exist before it does), deny rules before allow rules (an allow written
 * before its deny would admit, or let mail out to, what the deny is there to stop); with `replace`, stale agents
 * are deleted first and stale deny rules last. Access rules and outbound rules follow the same order.
 */
export async function importAdminDocument(
  repo: AdminTables,
  input: unknown,
  opts: WriteOptions,
): Promise<ImportResult> {
  const check = await checkAdminWrite(repo, input, opts);
  if (!check.ok) return failWith("invalid-document", { issues: check.issues });
  const doc = check.doc;

  const rules = doc.accessRules.map((r) => ({ ...r, rule: ruleKey(r.effect, r.pattern) }));
  const outRules = doc.outboundRules.map((r) => ({ ...r, rule: ruleKey(r.effect, r.pattern) }));
  const writes: (readonly [AdminTable, Item])[] = [
    ...rules.filter((r) => r.effect === "deny").map((r) => ["accessRules", r] as const),
    ...outRules.filter((r) => r.effect === "deny").map((r) => ["outboundRules", r] as const),
    ...rules.filter((r) => r.effect === "allow").map((r) => ["accessRules", r] as const),
    ...outRules.filter((r) => r.effect === "allow").map((r) => ["outboundRules", r] as const),
    ...doc.toolkits.map((t) => ["toolkits", t] as const),
    ...doc.approvers.map((a) => ["approvers", a] as const),
    ...doc.agents.map((a) => ["agents", a] as const),
    ...doc.responsibilities.map((r) => ["responsibilities", r] as const),
    ...doc.webhooks.map((w) => ["webhooks", w] as const),
    ...doc.mcpServers.map((m) => ["mcpServers", m] as const),
  ];
  for (const [table, item] of writes) await repo.rawPut(table, item);

  let deleted = 0;
  if (opts.replace) {
    const keep = {
      agents: new Set(doc.agents.map((a) => a.address)),
      responsibilities: new Set(doc.responsibilities.map((r) => r.id)),
      webhooks: new Set(doc.webhooks.map((w) => w.id)),
      toolkits: new Set(doc.toolkits.map((t) => t.id)),
      approvers: new Set(doc.approvers.map((a) => `${a.toolkit}\n${a.address}`)),
      accessRules: new Set(rules.map((r) => `${r.agent}\n${r.rule}`)),
      outboundRules: new Set(outRules.map((r) => `${r.agent}\n${r.rule}`)),
      mcpServers: new Set(doc.mcpServers.map((m) => m.id)),
    };
    const str = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
    const staleRules = (await repo.rawItems("accessRules")).filter(
      (r) => !keep.accessRules.has(`${str(r.agent)}\n${str(r.rule)}`),
    );
    const staleOutRules = (await repo.rawItems("outboundRules")).filter(
      (r) => !keep.outboundRules.has(`${str(r.agent)}\n${str(r.rule)}`),
    );
    const isAllow = (r: Item) => typeof r.rule === "string" && r.rule.startsWith("allow#");
    const deletions: (readonly [AdminTable, Item])[] = [
      ...(await repo.rawItems("agents"))
        .filter((a) => !keep.agents.has(str(a.address)))
        .map((a) => ["agents", { address: a.address }] as const),
      ...(await repo.rawItems("responsibilities"))
        .filter((r) => !keep.responsibilities.has(str(r.id)))
        .map((r) => ["responsibilities", { id: r.id }] as const),
      ...(await repo.rawItems("webhooks"))
        .filter((w) => !keep.webhooks.has(str(w.id)))
        .map((w) => ["webhooks", { id: w.id }] as const),
      ...(await repo.rawItems("toolkits"))
        .filter((t) => !keep.toolkits.has(str(t.id)))
        .map((t) => ["toolkits", { id: t.id }] as const),
      ...(await repo.rawItems("mcpServers"))
        .filter((m) => !keep.mcpServers.has(str(m.id)))
        .map((m) => ["mcpServers", { id: m.id }] as const),
      ...(await repo.rawItems("approvers"))
        .filter((a) => !keep.approvers.has(`${str(a.toolkit)}\n${str(a.address)}`))
        .map((a) => ["approvers", { toolkit: a.toolkit, address: a.address }] as const),
      ...staleRules.filter(isAllow).map((r) => ["accessRules", { agent: r.agent, rule: r.rule }] as const),
      ...staleOutRules
        .filter(isAllow)
        .map((r) => ["outboundRules", { agent: r.agent, rule: r.rule }] as const),
      ...staleRules
        .filter((r) => !isAllow(r))
        .map((r) => ["accessRules", { agent: r.agent, rule: r.rule }] as const),
      ...staleOutRules
        .filter((r) => !isAllow(r))
        .map((r) => ["outboundRules", { agent: r.agent, rule: r.rule }] as const),
    ];
    for (const [table, key] of deletions) if (await repo.rawDelete(table, key)) deleted++;
  }
  return { ok: true, written: writes.length, deleted };
}
