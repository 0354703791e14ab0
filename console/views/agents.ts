import type {
  AccessRuleItem,
  AgentItem,
  ApproverItem,
  McpServerItem,
  OutboundRuleItem,
  ResponsibilityItem,
  ToolkitItem,
} from "../../shared/admin/index.ts";
import { roundLimit } from "../../shared/admin/index.ts";
import type { DeploymentConfig } from "../../shared/config/index.ts";
import type { Page, RunRecord, SendOutcome, ThreadRecord } from "../../shared/ports/index.ts";
import type { ToolRegistry } from "../../shared/tool-framework/index.ts";
import { type Html, html, pager, seg, time, untrusted } from "./html.ts";
import { statusBadge } from "./layout.ts";

export interface AgentRow {
  readonly agent: AgentItem;
  readonly today: { runs: number; tokens: number };
}

const caps = (a: AgentItem, config: DeploymentConfig) => ({
  runs: Math.min(config.budgets.runsPerAgentPerDay, a.runsPerDay ?? Number.POSITIVE_INFINITY),
  tokens: Math.min(config.budgets.tokensPerAgentPerDay, a.tokensPerDay ?? Number.POSITIVE_INFINITY),
});

export function agentsTable(rows: readonly AgentRow[], config: DeploymentConfig): Html {
  if (rows.length === 0) return html`<p>No agents yet. Add one under <a href="/admin">Admin</a>.</p>`;
  return html`<table>
<thead><tr><th>Agent</th><th>Name</th><th>Model</th><th>Enabled</th><th>Runs today</th><th>Tokens today</th></tr></thead>
<tbody>${rows.map(({ agent: a, today }) => {
    const c = caps(a, config);
    return html`<tr><td><a href="/agents/${seg(a.address)}">${a.address}</a></td><td>${a.name}</td><td>${a.model}</td>
<td>${a.enabled ? "yes" : "no"}</td><td>${today.runs} / ${c.runs}</td><td>${today.tokens} / ${c.tokens}</td></tr>`;
  })}</tbody></table>`;
}

/**
 * Outbound reach without an allow rule, as shared/gate/outbound-reach.ts decides it and docs/admin.md says it: the
 * registered domains are a scheduled run's default only, never a mail-started run's (a steered run must not mail
 * the operator's own staff from a trusted address).
 */
export const NO_ALLOW_RULE =
  "a run started by mail writes only to its reply's own participants (the proven sender and the signed To/Cc of " +
  "the mail it answers), not even to the registered domains; a scheduled run also to addresses at the registered " +
  "domains, exactly (no subdomain). Deny rules only narrow this; allow rules replace it for every run.";

export interface AgentDetail {
  readonly agent: AgentItem;
  readonly today: { runs: number; tokens: number };
  readonly toolkits: readonly ToolkitItem[];
  readonly rules: readonly AccessRuleItem[];
  readonly outboundRules: readonly OutboundRuleItem[];
  readonly approvers: readonly ApproverItem[];
  readonly responsibilities: readonly ResponsibilityItem[];
  readonly threads: Page<ThreadRecord>;
  readonly runs: Page<RunRecord>;
  /** The newest of SES's reports on this agent's sent mail. */
  readonly deliveryEvents: readonly SendOutcome[];
  /** The snapshot's MCP servers: agent-step adopts their reviewed tools into the registry at each run. */
  readonly mcpServers: readonly McpServerItem[];
}

export function agentView(d: AgentDetail, config: DeploymentConfig, registry: ToolRegistry): Html {
  const a = d.agent;
  const c = caps(a, config);
  const model = config.models.find((m) => m.id === a.model);
  const base = `/agents/${seg(a.address)}`;
  return html`
<table>
<tr><th>Name</th><td>${a.name}</td></tr>
<tr><th>Model</th><td>${a.model}${model ? html` <span class="note">(${model.provider}, egress ${model.egress})</span>` : html` <span class="issues">not in the model catalog</span>`}</td></tr>
<tr><th>Enabled</th><td>${a.enabled ? "yes" : "no"}</td></tr>
<tr><th>Budget today</th><td>runs ${d.today.runs} / ${c.runs}, tokens ${d.today.tokens} / ${c.tokens}</td></tr>
<tr><th>Max rounds</th><td>${roundLimit(config, a)}</td></tr>
<tr><th>Accepts</th><td>auto-submitted ${a.acceptAutoSubmitted ? "yes" : "no"}, list mail ${a.acceptListMail ? "yes" : "no"}, Bcc ${a.acceptBcc ? "yes" : "no"}; mail whose signature covers no To/Cc naming it ${a.requireSignedAddressing ? "refused (signed addressing required)" : "accepted by the envelope, the run writing to its sender only"}</td></tr>
<tr><th>After a reply</th><td>${a.continueAfterReply ? "keeps working (another model round)" : "the run ends"}</td></tr>
<tr><th>Instructions</th><td><pre class="mono">${a.instructions || "(none)"}</pre></td></tr>
</table>

<h2>Toolkits</h2>
${
  d.toolkits.length === 0
    ? html`<p>No toolkit: this agent can call no tool.</p>`
    : d.toolkits.map((k) => {
        const approvers = d.approvers.filter((p) => p.toolkit === k.id);
        return html`<fieldset><legend><strong>${k.id}</strong>${k.name ? ` · ${k.name}` : ""}</legend>
<table><thead><tr><th>Tool</th><th>Display name</th><th>What it does</th><th>Confirm</th></tr></thead><tbody>
${k.tools.map((t) => toolRow(t, registry, d.mcpServers))}</tbody></table>
<p class="note">Sender gate: ${k.senderRules.length === 0 ? "every admitted sender" : k.senderRules.map((r) => `${r.effect} ${r.pattern}`).join(", ")};
scheduled runs: ${k.allowScheduled ? "allowed" : "no"}; confirm card to: ${k.confirmBySender ? "the verified sender" : "approvers"}.
Approvers: ${approvers.length === 0 ? "none" : approvers.map((p) => p.address).join(", ")}</p></fieldset>`;
      })
}

<h2>Access rules</h2>
${
  d.rules.length === 0
    ? html`<p>No rules: the global ceiling alone decides who may write.</p>`
    : html`<table><thead><tr><th>Effect</th><th>Pattern</th><th></th></tr></thead><tbody>${d.rules.map(
        (r) =>
          html`<tr><td>${r.effect}</td><td><code>${r.pattern}</code></td><td>${"failClosedFor" in r ? html`<span class="issues">fail-closed: an invalid stored rule</span>` : ""}</td></tr>`,
      )}</tbody></table>`
}

<h2>Outbound rules</h2>
${d.outboundRules.some((r) => r.effect === "allow") ? "" : html`<p>${d.outboundRules.length === 0 ? "No rules" : "No allow rule"}: ${NO_ALLOW_RULE}</p>`}
${
  d.outboundRules.length === 0
    ? ""
    : html`<table><thead><tr><th>Effect</th><th>Pattern</th><th></th></tr></thead><tbody>${d.outboundRules.map(
        (r) =>
          html`<tr><td>${r.effect}</td><td><code>${r.pattern}</code></td><td>${"failClosedFor" in r ? html`<span class="issues">fail-closed: an invalid stored rule</span>` : ""}</td></tr>`,
      )}</tbody></table>`
}

<h2>Responsibilities</h2>
${
  d.responsibilities.length === 0
    ? html`<p>None.</p>`
    : html`<table><thead><tr><th>Id</th><th>Schedule</th><th>Enabled</th><th>Prompt</th></tr></thead><tbody>${d.responsibilities.map(
        (r) =>
          html`<tr><td>${r.id}</td><td><code>${r.schedule}</code></td><td>${r.enabled ? "yes" : "no"}</td><td>${r.prompt.slice(0, 200)}</td></tr>`,
      )}</tbody></table>`
}

<h2>Threads</h2>
${threadsTable(a.address, d.threads.items)}
${pager(`${base}/threads`, d.threads.next)}

<h2>Runs</h2>
${runsTable(d.runs.items)}
${pager(`${base}/runs`, d.runs.next)}

<h2>Delivery problems</h2>
${deliveryEventsTable(d.deliveryEvents)}`;
}

/**
 * One granted tool. A reviewed MCP tool is not in the console's registry (agent-step adopts it from the snapshot
 * at each run), so it is looked up in the snapshot's servers: calling it unregistered would be false.
 */
function toolRow(name: string, registry: ToolRegistry, servers: readonly McpServerItem[]): Html {
  const tool = registry.get(name);
  if (tool) {
    const confirm = tool.sideEffects.kind === "external" && tool.sideEffects.confirm;
    return html`<tr><td><code>${name}</code></td><td>${tool.displayName}</td><td>${tool.summary}</td><td>${confirm ? "needs an approver" : "-"}</td></tr>`;
  }
  const server = servers.find((s) => s.tools.some((p) => p.exposedAs === name));
  const pin = server?.tools.find((p) => p.exposedAs === name);
  if (!server || !pin)
    return html`<tr><td><code>${name}</code></td><td>-</td><td><span class="issues">not registered in this deployment</span></td><td>-</td></tr>`;
  // The description is the server's text, reviewed but not ours: plain text, cut.
  const what = html`reviewed MCP tool of server <code>${server.id}</code> (${pin.class}): ${untrusted(pin.description || "(no description)", { inline: true, max: 200, by: { kind: "server", name: server.id, what: "the tool's description" } })}`;
  return html`<tr><td><code>${name}</code></td><td>${pin.name}</td><td>${what}${server.enabled ? "" : html` <span class="issues">server disabled: not offered</span>`}</td><td>${pin.class === "act" ? "needs an approver" : "-"}</td></tr>`;
}

const KIND: Record<SendOutcome["kind"], string> = {
  bounce: "bounced",
  complaint: "complaint",
  reject: "rejected by SES",
  "delivery-delay": "delayed",
};

/**
 * SES's bounces, complaints, rejects and delivery delays of this agent's mail, newest first. The recipients'
 * servers wrote the diagnostics: shown as plain text (untrusted), never as markup.
 */
export function deliveryEventsTable(events: readonly SendOutcome[]): Html {
  if (events.length === 0)
    return html`<p>None recorded: SES reported no bounce, complaint, reject or delay for this agent's mail (kept 90 days).</p>`;
  return html`<table><thead><tr><th>When</th><th>What</th><th>SES says</th><th>Recipients</th><th>SES message id</th></tr></thead><tbody>
${events.map(
  (e) => html`<tr><td>${time(e.at)}</td><td>${KIND[e.kind] ?? e.kind}</td><td><code>${e.detail}</code></td>
<td>${e.recipients.length === 0 ? "-" : e.recipients.map((r) => html`<div><code>${r.address}</code>${r.status ? ` ${r.status}` : ""}${r.diagnostic ? html` ${untrusted(r.diagnostic, { inline: true, max: 300 })}` : ""}</div>`)}</td>
<td><code>${e.sesMessageId}</code></td></tr>`,
)}</tbody></table>`;
}

export function threadsTable(agent: string, threads: readonly ThreadRecord[]): Html {
  if (threads.length === 0) return html`<p>No threads yet.</p>`;
  return html`<table><thead><tr><th>Last message</th><th>Subject</th><th>Messages</th></tr></thead><tbody>
${threads.map(
  (t) => html`<tr><td>${time(t.lastMessageAt)}</td>
<td><a href="/agents/${seg(agent)}/threads/${seg(t.threadId)}">${t.subject ? untrusted(t.subject, { inline: true, max: 200 }) : "(no subject)"}</a></td>
<td>${t.messageCount ?? 0}</td></tr>`,
)}</tbody></table>`;
}

export function runsTable(runs: readonly RunRecord[]): Html {
  if (runs.length === 0) return html`<p>No runs yet.</p>`;
  return html`<table><thead><tr><th>Created</th><th>Run</th><th>Kind</th><th>State</th><th>Round</th><th>Sender</th><th>Failure</th></tr></thead><tbody>
${runs.map(
  (
    r,
  ) => html`<tr><td>${time(r.createdAt)}</td><td><a href="/runs/${seg(r.runId)}"><code>${r.runId}</code></a></td><td>${r.kind}</td>
<td>${statusBadge(r.state === "completed" ? "ok" : r.state === "running" ? "info" : "failed")} ${r.state}${r.finishReason ? html` <span class="note">(${r.finishReason})</span>` : ""}</td>
<td>${r.round}</td><td>${r.sender ?? "(scheduled)"}</td><td>${failureCell(r)}</td></tr>`,
)}</tbody></table>`;
}

/** G19: the run's latest failure (a failed run, or mail it caused that was not sent), and how many there were. */
export function failureCell(r: RunRecord): Html | string {
  if (!r.failure) return "";
  const more = (r.failureCount ?? 1) > 1 ? html` <span class="note">(${r.failureCount} failures)</span>` : "";
  return html`${statusBadge("failed")} ${r.failure.class}: <code>${r.failure.reason}</code>${more}`;
}
