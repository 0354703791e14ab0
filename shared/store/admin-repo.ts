import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type { z } from "zod";
import {
  type AccessRuleItem,
  type AdminDocument,
  type AdminEditor,
  type AdminSnapshot,
  type AdminTable,
  type AdminWriteResult,
  type AgentItem,
  type ApproverItem,
  accessRuleItem,
  agentItem,
  approverItem,
  exportAdminDocument,
  type WriteOptions as ImportOptions,
  type ImportResult,
  importAdminDocument,
  type McpServerItem,
  mcpServerItem,
  type OutboundRuleItem,
  outboundRuleItem,
  type PutOptions,
  type ResponsibilityItem,
  readAccessRules,
  readAgents,
  readApprovers,
  readMcpServers,
  readOutboundRules,
  readResponsibilities,
  readToolkits,
  readWebhooks,
  responsibilityItem,
  ruleKey,
  type ToolkitItem,
  toolkitItem,
  type WebhookItem,
  webhookItem,
  zodIssues,
} from "../admin/index.ts";
import { type Resources, TABLES, type TableSpec } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { AuditLog, Item } from "../ports/index.ts";
import { fail, failWith } from "../result.ts";
import { isConditionFailed, queryAll, scanAll } from "./dynamo-util.ts";

export interface AdminRepoDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
  readonly logger: Logger;
  /** For the snapshot cache's age (tests move it). */
  readonly now?: () => Date;
  /**
   * Every item written or deleted is recorded in this audit log before the write and settled after it, as the
   * console records its own edits: the CLI passes it, so one log holds every admin change whoever made it. The
   * console records at its own level (one entry per form) and passes none; the pipeline never writes.
   */
  readonly audit?: { readonly log: AuditLog; readonly actor: string };
}

/**
 * The admin version: one item in the `state` table, incremented after every admin write made through this
 * repository (the CLI, `admin import`, the console). A snapshot is reused while the version is unchanged, so the
 * per-mail path reads one item instead of scanning five tables four times per mail.
 */
export const ADMIN_VERSION_KEY = { pk: "admin#version", sk: "version" } as const;
/**
 * How long a cached snapshot may be reused even with an unchanged version: an edit made around this repository
 * (straight in DynamoDB, or a writer that crashed between its write and its version bump) is seen within this.
 */
export const ADMIN_SNAPSHOT_MAX_AGE_MS = 60_000;

/**
 * The toolkit every new agent is attached to, so a fresh agent can at least answer its mail: send_email, and
 * read_email, which every cut mail names as the way to read the rest. read_email reaches no further
 * than round 1's context already does (the thread's mail the sender could see), so it widens nothing.
 */
export const DEFAULT_TOOLKIT = {
  id: "default",
  name: "Default tools",
  tools: ["send_email", "read_email"],
} as const;

/**
 * The admin tables (agents, access rules, outbound rules, toolkits, responsibilities, approvers). Reads validate every item and
 * fail closed (see shared/admin/read.ts); writes validate before they touch DynamoDB.
 */
export class AdminRepo implements AdminEditor {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #tables: Resources["tables"];
  readonly logger: Logger;
  readonly #now: () => number;
  readonly #audit: AdminRepoDeps["audit"];
  #cached: { readonly version: number; readonly at: number; readonly snapshot: AdminSnapshot } | null = null;

  constructor(deps: AdminRepoDeps) {
    this.#dynamo = deps.dynamo;
    this.#tables = deps.tables;
    this.logger = deps.logger;
    this.#audit = deps.audit;
    const now = deps.now ?? (() => new Date());
    this.#now = () => now().getTime();
  }

  // ---- agents

  async listAgents(): Promise<AgentItem[]> {
    return readAgents(await this.rawItems("agents"), this.logger);
  }

  async getAgent(address: string): Promise<AgentItem | null> {
    const raw = await this.rawGet("agents", { address });
    return raw ? (readAgents([raw], this.logger)[0] ?? null) : null;
  }

  /** A newly created agent is attached to the `default` toolkit (created, `system: true`, if missing). */
  async putAgent(input: unknown, opts: PutOptions = {}): Promise<AdminWriteResult<AgentItem>> {
    const r = await this.write("agents", agentItem, input, opts, "address");
    if (r.ok && r.created) await this.attachAgent(DEFAULT_TOOLKIT.id, r.item.address);
    return r;
  }

  /**
   * With `cascade` the agent's access and outbound rules go too and it is detached from every toolkit, so
   * re-adding the address later does not silently revive old allow rules. The agent item goes first: mail stops
   * at once.
   */
  async deleteAgent(address: string, opts: { cascade?: boolean } = {}): Promise<boolean> {
    const deleted = await this.rawDelete("agents", { address });
    if (opts.cascade) {
      for (const table of ["accessRules", "outboundRules"] as const)
        for (const raw of await this.rawQuery(table, "agent", address))
          await this.rawDelete(table, { agent: address, rule: raw.rule });
      for (const raw of await this.rawItems("toolkits")) {
        if (Array.isArray(raw.agents) && raw.agents.includes(address))
          await this.detachAgent(String(raw.id), address);
      }
    }
    return deleted;
  }

  // ---- access rules

  /** Validated rules (all agents, or one), with a synthetic `deny *` standing in for any invalid non-allow item. */
  async listAccessRules(agent?: string): Promise<AccessRuleItem[]> {
    const raws = agent
      ? await this.rawQuery("accessRules", "agent", agent)
      : await this.rawItems("accessRules");
    return readAccessRules(raws, this.logger);
  }

  async putAccessRule(input: unknown, opts: PutOptions = {}): Promise<AdminWriteResult<AccessRuleItem>> {
    const parsed = accessRuleItem.safeParse(input);
    if (!parsed.success) return failWith("invalid", { issues: zodIssues(parsed.error) });
    const item = parsed.data;
    const stored = { ...item, rule: ruleKey(item.effect, item.pattern) };
    const created = await this.rawPut("accessRules", stored, opts.ifAbsent ? "agent" : undefined);
    if (created === "duplicate") return fail("duplicate");
    return { ok: true, item, created };
  }

  async deleteAccessRule(agent: string, effect: string, pattern: string): Promise<boolean> {
    return this.rawDelete("accessRules", { agent, rule: ruleKey(effect, pattern) });
  }

  // ---- outbound rules

  /**
   * Validated outbound rules (all agents, or one), with a synthetic `deny *` standing in for any invalid item.
   * The pipeline reads them all (a Scan, which the functions may do on admin tables only) and filters by agent,
   * so an invalid item keyed by a mixed-case agent still binds that agent.
   */
  async listOutboundRules(agent?: string): Promise<OutboundRuleItem[]> {
    const raws = agent
      ? await this.rawQuery("outboundRules", "agent", agent)
      : await this.rawItems("outboundRules");
    return readOutboundRules(raws, this.logger);
  }

  async putOutboundRule(input: unknown, opts: PutOptions = {}): Promise<AdminWriteResult<OutboundRuleItem>> {
    const parsed = outboundRuleItem.safeParse(input);
    if (!parsed.success) return failWith("invalid", { issues: zodIssues(parsed.error) });
    const item = parsed.data;
    const stored = { ...item, rule: ruleKey(item.effect, item.pattern) };
    const created = await this.rawPut("outboundRules", stored, opts.ifAbsent ? "agent" : undefined);
    if (created === "duplicate") return fail("duplicate");
    return { ok: true, item, created };
  }

  async deleteOutboundRule(agent: string, effect: string, pattern: string): Promise<boolean> {
    return this.rawDelete("outboundRules", { agent, rule: ruleKey(effect, pattern) });
  }

  // ---- toolkits

  async listToolkits(): Promise<ToolkitItem[]> {
    return readToolkits(await this.rawItems("toolkits"), this.logger);
  }

  async getToolkit(id: string): Promise<ToolkitItem | null> {
    const raw = await this.rawGet("toolkits", { id });
    return raw ? (readToolkits([raw], this.logger)[0] ?? null) : null;
  }

  async putToolkit(input: unknown, opts: PutOptions = {}): Promise<AdminWriteResult<ToolkitItem>> {
    return this.write("toolkits", toolkitItem, input, opts, "id");
  }

  /** With `cascade` its approvers go too (a re-created toolkit of the same id starts with none). */
  async deleteToolkit(id: string, opts: { cascade?: boolean } = {}): Promise<boolean> {
    const deleted = await this.rawDelete("toolkits", { id });
    if (opts.cascade) {
      for (const raw of await this.rawQuery("approvers", "toolkit", id))
        await this.rawDelete("approvers", { toolkit: id, address: raw.address });
    }
    return deleted;
  }

  /** Add an agent to a toolkit's `agents`; creates the `default` toolkit when it is the one missing. */
  async attachAgent(toolkitId: string, agent: string): Promise<void> {
    if (toolkitId === DEFAULT_TOOLKIT.id) {
      const fresh = toolkitItem.parse({ ...DEFAULT_TOOLKIT, agents: [agent], system: true });
      if ((await this.rawPut("toolkits", fresh, "id")) !== "duplicate") return;
    }
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#tables.toolkits,
          Key: { id: toolkitId },
          UpdateExpression: "SET agents = list_append(if_not_exists(agents, :empty), :add)",
          ConditionExpression: "attribute_exists(id) AND NOT contains(agents, :agent)",
          ExpressionAttributeValues: { ":empty": [], ":add": [agent], ":agent": agent },
        }),
      );
    } catch (err) {
      // Already attached, or no such toolkit: either way there is nothing to add.
      if (!isConditionFailed(err)) throw err;
    }
  }

  /** Remove an agent from a toolkit's `agents`, by index under a condition so a concurrent edit is not lost. */
  async detachAgent(toolkitId: string, agent: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const raw = await this.rawGet("toolkits", { id: toolkitId });
      const index = Array.isArray(raw?.agents) ? raw.agents.indexOf(agent) : -1;
      if (index < 0) return;
      try {
        await this.#dynamo.send(
          new UpdateCommand({
            TableName: this.#tables.toolkits,
            Key: { id: toolkitId },
            UpdateExpression: `REMOVE agents[${index}]`,
            ConditionExpression: `agents[${index}] = :agent`,
            ExpressionAttributeValues: { ":agent": agent },
          }),
        );
        return;
      } catch (err) {
        if (!isConditionFailed(err)) throw err;
      }
    }
    throw new PosternError(
      "write-contended",
      `toolkit ${toolkitId}: could not detach ${agent} (edited concurrently 5 times)`,
    );
  }

  // ---- responsibilities

  async listResponsibilities(): Promise<ResponsibilityItem[]> {
    return readResponsibilities(await this.rawItems("responsibilities"), this.logger);
  }

  async putResponsibility(
    input: unknown,
    opts: PutOptions = {},
  ): Promise<AdminWriteResult<ResponsibilityItem>> {
    return this.write("responsibilities", responsibilityItem, input, opts, "id");
  }

  async deleteResponsibility(id: string): Promise<boolean> {
    return this.rawDelete("responsibilities", { id });
  }

  // ---- approvers

  // ---- MCP servers (shared/mcp): what `postern mcp add` and `review` write, through checkAdminWrite first

  async listMcpServers(): Promise<McpServerItem[]> {
    return readMcpServers(await this.rawItems("mcpServers"), this.logger);
  }

  async putMcpServer(input: unknown): Promise<AdminWriteResult<McpServerItem>> {
    return this.write("mcpServers", mcpServerItem, input, {}, "id");
  }

  async deleteMcpServer(id: string): Promise<boolean> {
    return this.rawDelete("mcpServers", { id });
  }

  async listApprovers(toolkit?: string): Promise<ApproverItem[]> {
    const raws = toolkit
      ? await this.rawQuery("approvers", "toolkit", toolkit)
      : await this.rawItems("approvers");
    return readApprovers(raws, this.logger);
  }

  async putApprover(input: unknown, opts: PutOptions = {}): Promise<AdminWriteResult<ApproverItem>> {
    return this.write("approvers", approverItem, input, opts, "toolkit");
  }

  async deleteApprover(toolkit: string, address: string): Promise<boolean> {
    return this.rawDelete("approvers", { toolkit, address });
  }

  // ---- webhook endpoints (docs/events.md)

  async listWebhooks(): Promise<WebhookItem[]> {
    return readWebhooks(await this.rawItems("webhooks"), this.logger);
  }

  async getWebhook(id: string): Promise<WebhookItem | null> {
    const raw = await this.rawGet("webhooks", { id });
    return raw ? (readWebhooks([raw], this.logger)[0] ?? null) : null;
  }

  async putWebhook(input: unknown, opts: PutOptions = {}): Promise<AdminWriteResult<WebhookItem>> {
    return this.write("webhooks", webhookItem, input, opts, "id");
  }

  async deleteWebhook(id: string): Promise<boolean> {
    return this.rawDelete("webhooks", { id });
  }

  // ---- whole state

  /**
   * The whole admin state, validated. Read fresh when the admin version moved (or the cache is older than
   * ADMIN_SNAPSHOT_MAX_AGE_MS), else the container's last read: one consistent GetItem per call. The version is
   * read before the tables, so a write racing a reload leaves a newer snapshot under an older version, which the
   * next call reloads: a cached snapshot is never older than its version says.
   */
  async snapshot(): Promise<AdminSnapshot> {
    const version = await this.#version();
    const c = this.#cached;
    if (c && c.version === version && this.#now() - c.at < ADMIN_SNAPSHOT_MAX_AGE_MS) return c.snapshot;
    const at = this.#now();
    const snapshot = await this.#readAll();
    this.#cached = { version, at, snapshot };
    return snapshot;
  }

  async #version(): Promise<number> {
    const r = await this.#dynamo.send(
      new GetCommand({ TableName: this.#tables.state, Key: ADMIN_VERSION_KEY, ConsistentRead: true }),
    );
    return typeof r.Item?.v === "number" ? r.Item.v : 0;
  }

  /** After every admin write: readers holding a snapshot reload on their next call. */
  async #bumpVersion(): Promise<void> {
    this.#cached = null;
    await this.#dynamo.send(
      new UpdateCommand({
        TableName: this.#tables.state,
        Key: ADMIN_VERSION_KEY,
        UpdateExpression: "ADD v :one",
        ExpressionAttributeValues: { ":one": 1 },
      }),
    );
  }

  async #readAll(): Promise<AdminSnapshot> {
    const [agents, accessRules, outboundRules, toolkits, responsibilities, approvers, webhooks, mcpServers] =
      await Promise.all([
        this.listAgents(),
        this.listAccessRules(),
        this.listOutboundRules(),
        this.listToolkits(),
        this.listResponsibilities(),
        this.listApprovers(),
        this.listWebhooks(),
        this.listMcpServers(),
      ]);
    return {
      agents,
      accessRules,
      outboundRules,
      toolkits,
      responsibilities,
      approvers,
      webhooks,
      mcpServers,
    };
  }

  exportDocument(): Promise<AdminDocument> {
    return exportAdminDocument(this);
  }

  /** Checked against the deployment (`opts.catalog`) and the stored state first, as every operator write is. */
  importDocument(doc: unknown, opts: ImportOptions): Promise<ImportResult> {
    return importAdminDocument(this, doc, opts);
  }

  // ---- raw access (unvalidated; used by import/export and cascades, never by gates)

  async rawItems(table: AdminTable): Promise<Item[]> {
    return scanAll(this.#dynamo, this.#tables[table]);
  }

  async rawQuery(table: AdminTable, pkName: string, pk: string): Promise<Item[]> {
    return queryAll(this.#dynamo, {
      TableName: this.#tables[table],
      KeyConditionExpression: "#pk = :pk",
      ExpressionAttributeNames: { "#pk": pkName },
      ExpressionAttributeValues: { ":pk": pk },
    });
  }

  async rawGet(table: AdminTable, key: Item): Promise<Item | null> {
    const r = await this.#dynamo.send(new GetCommand({ TableName: this.#tables[table], Key: key }));
    return (r.Item as Item | undefined) ?? null;
  }

  /** Put; with `ifAbsentOn` (the partition key name) only when no item has that key. → created? | duplicate */
  async rawPut(table: AdminTable, item: Item, ifAbsentOn?: string): Promise<boolean | "duplicate"> {
    return this.#audited("put", table, item, item, async () => this.#put(table, item, ifAbsentOn));
  }

  async #put(table: AdminTable, item: Item, ifAbsentOn?: string): Promise<boolean | "duplicate"> {
    try {
      const r = await this.#dynamo.send(
        new PutCommand({
          TableName: this.#tables[table],
          Item: item,
          ReturnValues: "ALL_OLD",
          ...(ifAbsentOn
            ? {
                ConditionExpression: "attribute_not_exists(#pk)",
                ExpressionAttributeNames: { "#pk": ifAbsentOn },
              }
            : {}),
        }),
      );
      await this.#bumpVersion();
      return r.Attributes === undefined;
    } catch (err) {
      if (isConditionFailed(err)) return "duplicate";
      throw err;
    }
  }

  async rawDelete(table: AdminTable, key: Item): Promise<boolean> {
    return this.#audited("delete", table, key, null, async () => this.#delete(table, key));
  }

  async #delete(table: AdminTable, key: Item): Promise<boolean> {
    const r = await this.#dynamo.send(
      new DeleteCommand({ TableName: this.#tables[table], Key: key, ReturnValues: "ALL_OLD" }),
    );
    if (r.Attributes !== undefined) await this.#bumpVersion();
    return r.Attributes !== undefined;
  }

  /** Recorded before, settled after (a refused conditional put or a missing item settles `failed`). */
  async #audited<R extends boolean | "duplicate">(
    action: "put" | "delete",
    table: AdminTable,
    item: Item,
    after: Item | null,
    write: () => Promise<R>,
  ): Promise<R> {
    const audit = this.#audit;
    if (!audit) return write();
    const spec: TableSpec = TABLES[table];
    const names = spec.sortKey ? [spec.partitionKey, spec.sortKey] : [spec.partitionKey];
    const key = Object.fromEntries(names.map((n) => [n, item[n]]));
    const before = await this.rawGet(table, key);
    const entry = await audit.log.record({
      actor: audit.actor,
      action,
      table,
      key: names.map((n) => `${n}=${JSON.stringify(item[n])}`).join(" "),
      before,
      after,
    });
    let r: R;
    try {
      r = await write();
    } catch (err) {
      await audit.log.settle(entry, "failed", String((err as Error)?.message ?? err));
      throw err;
    }
    const done = action === "put" ? r !== "duplicate" : r === true;
    await audit.log.settle(
      entry,
      done ? "applied" : "failed",
      done ? undefined : action === "put" ? "exists" : "not found",
    );
    return r;
  }

  private async write<T extends Item>(
    table: AdminTable,
    schema: z.ZodType<T>,
    input: unknown,
    opts: PutOptions,
    pkName: string,
  ): Promise<AdminWriteResult<T>> {
    const parsed = schema.safeParse(input);
    if (!parsed.success) return failWith("invalid", { issues: zodIssues(parsed.error) });
    const created = await this.rawPut(table, parsed.data, opts.ifAbsent ? pkName : undefined);
    if (created === "duplicate") return fail("duplicate");
    return { ok: true, item: parsed.data, created };
  }
}
