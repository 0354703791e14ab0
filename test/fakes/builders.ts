import * as z from "zod";
import {
  type AdminSnapshot,
  type AgentItem,
  agentItem,
  type ToolkitItem,
  toolkitItem,
} from "../../shared/admin/schema.ts";
import type { MailScope } from "../../shared/agent/mailbox/mail-scope.ts";
import type { LoadedRun, StoredRun } from "../../shared/agent/ports.ts";
import { parseConfig } from "../../shared/config/load.ts";
import type { DeploymentConfig } from "../../shared/config/schema.ts";
import type { InboundEvent } from "../../shared/intake/notification.ts";
import type { ConfirmPayload } from "../../shared/payloads/agent-step.ts";
import type { MessageRecord } from "../../shared/ports/messages.ts";
import { defineTool, success, type Tool } from "../../shared/tool-framework/tool.ts";
import {
  buildMessage,
  type MessageParts,
  resolverFor,
  signWith,
  testKeys,
  zoneFor,
} from "../helpers/dkim-test-keys.ts";

/** Test data, built the way the system builds it (schemas parse it), with overrides for what a test is about. */

export const DOMAIN = "agents.example.net";
export const AGENT = `helpdesk@${DOMAIN}`;
export const SENDER = "alice@example.com";
export const APPROVER = "boss@approvers.example";
export const NOW = new Date("2026-11-29T12:00:00Z");

export function config(over: Record<string, unknown> = {}): DeploymentConfig {
  return parseConfig({
    domains: [DOMAIN],
    models: [{ id: "demo", provider: "scripted", script: "unused.json", egress: "internal" }],
    ...over,
  });
}

export function agent(extra: Partial<AgentItem> = {}): AgentItem {
  return agentItem.parse({ address: AGENT, name: "Helpdesk", model: "demo", ...extra });
}

export function toolkit(id: string, tools: string[], extra: Partial<ToolkitItem> = {}): ToolkitItem {
  return toolkitItem.parse({ id, tools, agents: [AGENT], ...extra });
}

export function admin(extra: Partial<AdminSnapshot> = {}): AdminSnapshot {
  return {
    agents: [agent()],
    accessRules: [],
    outboundRules: [],
    toolkits: [],
    responsibilities: [],
    approvers: [],
    webhooks: [],
    mcpServers: [],
    ...extra,
  };
}

/** A run as the step loop sees it (loaded, with its trigger). */
export function replyRun(extra: Partial<LoadedRun> = {}): LoadedRun {
  return {
    runId: "run-1",
    agent: AGENT,
    kind: "reply",
    state: "running",
    correlationId: "ses-1",
    createdAt: "2026-11-29T12:00:00.000Z",
    trigger: {
      kind: "message",
      message: { id: "msg-1", threadId: "t-1", subject: "Order 1234", headerMessageId: "m1@example.com" },
    },
    sender: { address: SENDER, routingKey: SENDER, displayName: "Alice" },
    ...extra,
  };
}

/** A run as the run table keeps it. */
export function storedRun(extra: Partial<StoredRun> = {}): StoredRun {
  return {
    runId: "run-1",
    agent: AGENT,
    kind: "reply",
    state: "running",
    messageId: "msg-1",
    responsibilityId: null,
    sender: SENDER,
    threadId: "t-1",
    maxRounds: 8,
    correlationId: "ses-1",
    createdAt: "2026-11-29T12:00:00.000Z",
    ...extra,
  };
}

/** An accepted inbound message as verify stores it (with the `fromName` it adds). */
export function message(extra: Partial<MessageRecord> & { fromName?: string } = {}): MessageRecord {
  const id = extra.id ?? "msg-1";
  const agentAddress = extra.agent ?? AGENT;
  return {
    agent: agentAddress,
    id,
    direction: "in",
    threadId: "t-1",
    headerMessageId: "m1@example.com",
    inReplyTo: null,
    references: [],
    from: SENDER,
    to: [agentAddress],
    cc: [],
    subject: "Order 1234",
    at: NOW.toISOString(),
    bodyKey: `mail/${agentAddress}/${id}/body.txt`,
    hasHtmlOnly: false,
    attachments: [],
    hop: 0,
    ...extra,
  };
}

export function confirmMessage(extra: Partial<ConfirmPayload> = {}): ConfirmPayload {
  return {
    code: "K7Q2M9XT4Z",
    action: "approve",
    replyId: "ses-reply-1",
    hop: 1,
    sender: APPROVER,
    agent: AGENT,
    agentOriginated: false,
    ...extra,
  };
}

/** SES's notification of a stored mail, as verify reads it. */
export function inboundEvent(extra: Partial<InboundEvent> = {}): InboundEvent {
  const sesMessageId = extra.sesMessageId ?? "ses-1";
  return {
    sesMessageId,
    recipients: [AGENT],
    mailFrom: SENDER,
    receivedAt: NOW.toISOString(),
    bucket: "postern-mail",
    objectKey: `inbound/${sesMessageId}`,
    virusVerdict: "PASS",
    ...extra,
  };
}

/**
 * A mail DKIM-signed by `domain` with the test keys (test/helpers/dkim-test-keys.ts), and a resolver publishing
 * them for `domain` and `alsoPublished`: what a proven sender's mail looks like to the gate.
 */
export async function signedMail(
  parts: MessageParts = {},
  domain = "example.com",
  alsoPublished: readonly string[] = [],
): Promise<{ raw: Buffer; resolver: ReturnType<typeof resolverFor> }> {
  const keys = await testKeys();
  const raw = await signWith(keys, "rsa2048", buildMessage(parts), { domain });
  return { raw, resolver: resolverFor(zoneFor(keys, [domain, ...alsoPublished])) };
}

/**
 * A tool with a countable side effect, so a test can prove "exactly once". `confirm` makes it an external tool
 * that needs an approver (G14): calling it proposes, applying the plan runs it.
 */
export function countingTool(
  name: string,
  counts: Map<string, number>,
  opts: { confirm?: boolean } = {},
): Tool {
  return defineTool({
    name,
    description: `Test tool ${name}: records that it ran.`,
    summary: "test side effect",
    input: z.object({ note: z.string().max(100).optional() }).strict(),
    egress: { kind: "structure" },
    sideEffects: opts.confirm ? { kind: "external", confirm: true } : { kind: "internal" },
    async use(ctx, input) {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return success({ ran: name, note: input.note ?? null, sender: ctx.sender?.routingKey ?? null });
    },
  });
}

/**
 * The agent's whole archive, as a toolkit with `archiveScope: "agent"` sees it on a scheduled run (no sender): the
 * scope the mailbox tests use when they test the agent and thread bounds (G12) rather than same eyes.
 */
export const WHOLE: MailScope = { kind: "agent", sender: null };
