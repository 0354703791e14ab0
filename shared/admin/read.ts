import type { z } from "zod";
import type { Logger } from "../logger.ts";
import type { Item } from "../ports/index.ts";
import { type AdminIssue, issuesText, zodIssues } from "./issues.ts";
import { type McpServerItem, mcpServerItem } from "./mcp-server-item.ts";
import {
  type AccessRuleItem,
  type AgentItem,
  type ApproverItem,
  accessRuleItem,
  agentAddress,
  agentItem,
  approverItem,
  type OutboundRuleItem,
  outboundRuleItem,
  type ResponsibilityItem,
  responsibilityItem,
  type ToolkitItem,
  toolkitItem,
} from "./schema.ts";
import { type WebhookItem, webhookItem } from "./webhook-item.ts";

/** One raw admin-table item as the store returns it, before validation. */

/**
 * Validation on read, per admin table. Every item read from DynamoDB passes through here before anything uses
 * it, because operators (or a console edit) can write anything into these tables. The rule is fail closed, and
 * what "closed" means differs per table:
 *
 * - agents, toolkits, responsibilities, approvers: an invalid item is treated as absent. No agent means mail
 *   to that address is refused as unknown; no toolkit means no tools; no responsibility means no scheduled run;
 *   no approver means nobody can confirm. Absence only ever narrows.
 * - access rules: absence narrows only for ALLOW rules. Dropping a DENY rule would widen access (G3: deny wins),
 *   so an invalid rule that is not provably an allow rule is replaced by a synthetic `deny *` rule for its
 *   agent: that agent refuses every sender until an operator fixes or removes the item.
 * - outbound rules: every invalid item, allow or deny, is replaced by a synthetic `deny *` for its agent. A
 *   dropped deny would let mail out to the address it named; a dropped allow can widen too, because an agent
 *   whose only allow rule vanishes falls back to the registered-domain default. Under `deny *` the agent's mail
 *   reaches only a reply's own participants until an operator fixes or removes the item.
 */

export type AdminTable =
  | "agents"
  | "accessRules"
  | "outboundRules"
  | "toolkits"
  | "responsibilities"
  | "approvers"
  | "webhooks"
  | "mcpServers";

/** Marker on a synthetic deny-all rule, holding the sort key of the invalid item it stands in for. */
export const FAIL_CLOSED_FIELD = "failClosedFor";

export function keyText(table: AdminTable, raw: Item): string {
  const s = (k: string) => JSON.stringify(raw[k] ?? null);
  switch (table) {
    case "agents":
      return `address=${s("address")}`;
    case "accessRules":
    case "outboundRules":
      return `agent=${s("agent")} rule=${s("rule")}`;
    case "toolkits":
    case "responsibilities":
    case "webhooks":
    case "mcpServers":
      return `id=${s("id")}`;
    case "approvers":
      return `toolkit=${s("toolkit")} address=${s("address")}`;
  }
}

function logInvalid(
  logger: Logger,
  table: AdminTable,
  raw: Item,
  issues: AdminIssue[],
  effect: string,
): void {
  logger.warn(
    `invalid admin item skipped: table=${table} ${keyText(table, raw)} (${effect}): ${issuesText(issues)}`,
    { table, key: keyText(table, raw), issues },
  );
}

function readEach<T>(
  table: AdminTable,
  schema: z.ZodType<T>,
  raws: readonly Item[],
  logger: Logger,
  effect: string,
): T[] {
  const out: T[] = [];
  for (const raw of raws) {
    const r = schema.safeParse(raw);
    if (r.success) out.push(r.data);
    else logInvalid(logger, table, raw, zodIssues(r.error), effect);
  }
  return out;
}

export const readAgents = (raws: readonly Item[], logger: Logger): AgentItem[] =>
  readEach("agents", agentItem, raws, logger, "treated as absent: mail to it is refused");
export const readToolkits = (raws: readonly Item[], logger: Logger): ToolkitItem[] =>
  readEach("toolkits", toolkitItem, raws, logger, "treated as absent: its tools are granted to nobody");
export const readResponsibilities = (raws: readonly Item[], logger: Logger): ResponsibilityItem[] =>
  readEach("responsibilities", responsibilityItem, raws, logger, "treated as absent: it never runs");
export const readApprovers = (raws: readonly Item[], logger: Logger): ApproverItem[] =>
  readEach("approvers", approverItem, raws, logger, "treated as absent: that address cannot approve");

export const readWebhooks = (raws: readonly Item[], logger: Logger): WebhookItem[] =>
  readEach("webhooks", webhookItem, raws, logger, "treated as absent: no event is sent to it");
export const readMcpServers = (raws: readonly Item[], logger: Logger): McpServerItem[] =>
  readEach("mcpServers", mcpServerItem, raws, logger, "treated as absent: none of its tools is offered");

/** The stored sort key of an access rule. One pattern has at most one rule per effect. */
export const ruleKey = (effect: string, pattern: string): string => `${effect}#${pattern}`;

/** Only an item that says "allow" in both its effect and its key may be dropped: anything else could be a deny. */
function provablyAllow(raw: Item): boolean {
  return raw.effect === "allow" && typeof raw.rule === "string" && raw.rule.startsWith("allow#");
}

/**
 * One stored rule (access or outbound) against its schema and its key: the sort key must be `<effect>#<pattern>`
 * of the item's own fields. The item without its key, or what is wrong with it.
 */
function checkRule<T extends { effect: string; pattern: string }>(
  schema: z.ZodType<T>,
  raw: Item,
):
  | { readonly item: T; readonly issues?: undefined }
  | { readonly item?: undefined; readonly issues: AdminIssue[] } {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { issues: zodIssues(parsed.error) };
  if (raw.rule !== ruleKey(parsed.data.effect, parsed.data.pattern))
    return { issues: [{ path: "rule", message: "key must be <effect>#<pattern> of the item's own fields" }] };
  const { rule: _key, ...item } = parsed.data as T & { rule?: unknown };
  return { item: item as unknown as T };
}

export function readAccessRules(raws: readonly Item[], logger: Logger): AccessRuleItem[] {
  const rules: AccessRuleItem[] = [];
  const denyAll = new Map<string, string>();
  for (const raw of raws) {
    const checked = checkRule(accessRuleItem, raw);
    if (checked.item) {
      rules.push(checked.item);
      continue;
    }
    const { issues } = checked;
    if (provablyAllow(raw)) {
      logInvalid(logger, "accessRules", raw, issues, "allow rule treated as absent");
      continue;
    }
    // Lower-cased because agent addresses are stored lower-case: a deny written as "Suzie@..." still binds suzie.
    const agent = typeof raw.agent === "string" ? raw.agent.trim().toLowerCase() : "";
    if (agentAddress.safeParse(agent).success) {
      logger.error(
        `invalid access rule may be a deny: agent ${agent} now refuses every sender: table=accessRules ${keyText("accessRules", raw)}: ${issuesText(issues)}`,
        { table: "accessRules", key: keyText("accessRules", raw), issues },
      );
      denyAll.set(agent, String(raw.rule ?? ""));
    } else {
      // No valid agent can have this key (agent addresses pass the same schema), so the rule binds nobody.
      logInvalid(logger, "accessRules", raw, issues, "its agent key is not an agent address: binds nobody");
    }
  }
  for (const [agent, rule] of denyAll) {
    rules.push({ agent, pattern: "*", effect: "deny", [FAIL_CLOSED_FIELD]: rule } as AccessRuleItem);
  }
  return rules;
}

/**
 * Outbound rules, validated like access rules (the key must be `<effect>#<pattern>` of the item's own
 * fields), but every invalid item fails closed as a synthetic `deny *` for its agent, allow or not (see above).
 */
export function readOutboundRules(raws: readonly Item[], logger: Logger): OutboundRuleItem[] {
  const rules: OutboundRuleItem[] = [];
  const denyAll = new Map<string, string>();
  for (const raw of raws) {
    const checked = checkRule(outboundRuleItem, raw);
    if (checked.item) {
      rules.push(checked.item);
      continue;
    }
    const { issues } = checked;
    const agent = typeof raw.agent === "string" ? raw.agent.trim().toLowerCase() : "";
    if (agentAddress.safeParse(agent).success) {
      logger.error(
        `invalid outbound rule: agent ${agent} now writes only to a reply's own participants: table=outboundRules ${keyText("outboundRules", raw)}: ${issuesText(issues)}`,
        { table: "outboundRules", key: keyText("outboundRules", raw), issues },
      );
      denyAll.set(agent, String(raw.rule ?? ""));
    } else {
      logInvalid(logger, "outboundRules", raw, issues, "its agent key is not an agent address: binds nobody");
    }
  }
  for (const [agent, rule] of denyAll) {
    rules.push({ agent, pattern: "*", effect: "deny", [FAIL_CLOSED_FIELD]: rule } as OutboundRuleItem);
  }
  return rules;
}
