import * as z from "zod";
import { accessEffect, accessPattern, accessRule, domainName } from "../config/index.ts";
import { type McpServerItem, mcpServerItem } from "./mcp-server-item.ts";
import { type WebhookItem, webhookItem } from "./webhook-item.ts";

/**
 * Admin items: what operators edit at run time (CLI or console) in DynamoDB. Every item is validated on read;
 * an item that fails validation is treated as absent (fail closed) and logged with its reason. Extra fields are
 * allowed on read (passthrough) so a newer CLI's items do not break an older function, but never interpreted; a
 * write may not add one (shared/admin/raw-input.ts).
 */

/** An agent's address: one lower-case addr-spec at a registered domain (the domain check happens at use). */
export const agentAddress = z
  .string()
  .regex(
    /^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?@[a-z0-9.-]+\.[a-z]{2,}$/,
    "must be a lower-case address like helpdesk@agents.example.com (no +tag)",
  );

export const toolName = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "must be a snake_case tool name");
export const toolkitId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "must be a lower-case id ([a-z0-9._-])");

export const agentItem = z
  .object({
    address: agentAddress,
    name: z.string().min(1).max(120),
    model: z.string().min(1),
    instructions: z.string().max(20_000).default(""),
    /** Per-agent caps; each may only lower the global one. The round limit (G10): read it with `roundLimit`. */
    maxRounds: z.number().int().positive().optional(),
    /** The round limit's former name, still read for one release (stored agents carry it): use maxRounds. */
    maxToolTurns: z.number().int().positive().optional(),
    runsPerDay: z.number().int().positive().optional(),
    tokensPerDay: z.number().int().positive().optional(),
    /**
     * Automatic mail (RFC 3834 Auto-Submitted, bounces, the de-facto autoresponder markers, `Precedence:
     * bulk/junk/list`) starts no run unless the agent opts in (G5). The hop limit applies either way.
     */
    acceptAutoSubmitted: z.boolean().default(false),
    /**
     * Mailing-list and bulk-sender mail (List-Id, List-Unsubscribe and the other RFC 2369 fields; `Precedence:
     * list`) starts no run unless the agent opts in, separately from `acceptAutoSubmitted` (G5). The hop limit
     * applies either way.
     */
    acceptListMail: z.boolean().default(false),
    /**
     * Accept mail that does not name the agent in a signed To or Cc (Bcc, some forwards). Off by default: a
     * signed mail sent to someone else can then be replayed to the agent by its recipient (G2).
     */
    acceptBcc: z.boolean().default(false),
    /**
     * Accept only mail whose signature covers a To or Cc naming the agent (or Bcc, with acceptBcc). Off by default:
     * Outlook, Microsoft 365 and iCloud leave To/Cc unsigned, and their mail is then addressed by the envelope with
     * a run narrowed to its sender (docs/gate.md). An agent whose tools act may want the signer's own word.
     */
    requireSignedAddressing: z.boolean().default(false),
    /**
     * A reply ends the run: a round whose only call is a successful `send_email` reply completes it without another
     * model round (one model call for a simple answer). An agent that works on after answering (files a ticket,
     * records a fact) opts out and the run continues until the model stops. Absent means false.
     */
    continueAfterReply: z.boolean().optional(),
    enabled: z.boolean().default(true),
  })
  .loose();
export type AgentItem = z.infer<typeof agentItem>;

/**
 * Fields kept under a former name for one release, so a stored item written before the rename still reads: the
 * console shows and saves the new name (an edit migrates the item), and its form offers no input for the old one.
 */
export const FORMER_NAMES: Readonly<Record<string, readonly string[]>> = { agents: ["maxToolTurns"] };

export const accessRuleItem = z
  .object({ agent: agentAddress, pattern: accessPattern, effect: accessEffect })
  .loose();
export type AccessRuleItem = z.infer<typeof accessRuleItem>;

/**
 * Where an agent's mail may go (send_email's `new` mail and any address the model adds to a reply): the access
 * rules' patterns and algebra, matched on the recipient's routing key (shared/gate/outbound-reach.ts).
 */
export const outboundRuleItem = z
  .object({ agent: agentAddress, pattern: accessPattern, effect: accessEffect })
  .loose();
export type OutboundRuleItem = z.infer<typeof outboundRuleItem>;

export const toolkitItem = z
  .object({
    id: toolkitId,
    name: z.string().max(120).optional(),
    tools: z.array(toolName).default([]),
    agents: z.array(agentAddress).default([]),
    /** Sender gate: same pattern language and algebra as access rules; empty admits every admitted sender. */
    senderRules: z.array(accessRule).default([]),
    /** Scheduled runs have no proven sender, so a toolkit must opt in to being usable on them (G11). */
    allowScheduled: z.boolean().default(false),
    /** `system` toolkits ("default", "all") are maintained by `postern toolkits sync`. */
    system: z.boolean().default(false),
    /** For `confirm` tools (G14): send the confirm card to the verified sender instead of the approvers. */
    confirmBySender: z.boolean().default(false),
    /**
     * Whose mail this toolkit's tools may read (same eyes). `sender`: only mail the run's proven sender
     * could already see. `agent`: the agent's whole archive, meant for toolkits whose sender gate admits only
     * staff; a run that reads wider than its sender this way has its channels closed (G18).
     */
    archiveScope: z.enum(["sender", "agent"]).default("sender"),
    /**
     * Hosts this toolkit's network tools (web_fetch, web_search) may still reach once a run's channels are closed
     * (G18): exact lower-case host names. None by default: a run that read wider than its sender cannot fetch.
     */
    egressHosts: z.array(domainName).max(50).default([]),
  })
  .loose();
export type ToolkitItem = z.infer<typeof toolkitItem>;

export const responsibilityItem = z
  .object({
    id: toolkitId,
    agent: agentAddress,
    /** EventBridge Scheduler syntax: `rate(1 day)`, `rate(15 minutes)` or `cron(0 9 * * ? *)`. */
    schedule: z
      .string()
      .regex(
        /^(rate\(\d+ (minute|minutes|hour|hours|day|days)\)|cron\([^)]+\))$/,
        "must be rate(N unit) or cron(...)",
      ),
    prompt: z.string().min(1).max(20_000),
    enabled: z.boolean().default(true),
    /**
     * A scheduled run has no sender, so no sender's view to keep to: what stored mail its tools may read is set
     * here. `none` (default): no stored mail at all. `agent`: the agent's whole archive, with the
     * run's channels closed once it reads any (G18).
     */
    archiveScope: z.enum(["none", "agent"]).default("none"),
  })
  .loose();
export type ResponsibilityItem = z.infer<typeof responsibilityItem>;

export const approverItem = z
  .object({
    toolkit: toolkitId,
    address: z.string().regex(/^[^\s@]+@[a-z0-9.-]+$/, "must be a lower-case address"),
  })
  .loose();
export type ApproverItem = z.infer<typeof approverItem>;

/** The whole admin state as one document (`postern admin import/export`). */
export const adminDocument = z
  .object({
    agents: z.array(agentItem).default([]),
    accessRules: z.array(accessRuleItem).default([]),
    outboundRules: z.array(outboundRuleItem).default([]),
    toolkits: z.array(toolkitItem).default([]),
    responsibilities: z.array(responsibilityItem).default([]),
    approvers: z.array(approverItem).default([]),
    webhooks: z.array(webhookItem).default([]),
    /** MCP tool servers and their reviewed tools (docs/mcp.md). */
    mcpServers: z.array(mcpServerItem).default([]),
  })
  .loose();
export type AdminDocument = z.infer<typeof adminDocument>;

/** The admin data one gate decision needs, already validated. */
export interface AdminSnapshot {
  readonly agents: readonly AgentItem[];
  readonly accessRules: readonly AccessRuleItem[];
  readonly outboundRules: readonly OutboundRuleItem[];
  readonly toolkits: readonly ToolkitItem[];
  readonly responsibilities: readonly ResponsibilityItem[];
  readonly approvers: readonly ApproverItem[];
  readonly webhooks: readonly WebhookItem[];
  readonly mcpServers: readonly McpServerItem[];
}
