import type {
  AdminIssue,
  AdminSnapshot,
  AgentItem,
  ResponsibilityItem,
  ToolkitItem,
} from "../../shared/admin/index.ts";
import type { McpServerItem } from "../../shared/mcp/index.ts";
import type { AdminKind } from "../admin-edit.ts";
import { type Html, html, seg } from "./html.ts";
import { csrfField } from "./layout.ts";

export interface AdminViewOptions {
  readonly csrf: string;
  readonly canWrite: boolean;
  /** A refused add: its problems, and what was typed, shown again in its form so nothing is lost. */
  readonly issues?:
    | {
        readonly kind: AdminKind;
        readonly issues: readonly AdminIssue[];
        readonly item?: Record<string, unknown>;
      }
    | undefined;
  /** The model catalog's ids (the deployment config's `models`): an agent's model is chosen from them. */
  readonly models: readonly string[];
}

/** What was typed into a refused add form of this kind, if that is the one refused. */
const typed = (kind: AdminKind, o: AdminViewOptions): Record<string, unknown> | null =>
  o.issues?.kind === kind ? (o.issues.item ?? null) : null;
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * The model as a choice from the catalog, not free text: a typo can no longer be typed. A stored model the
 * catalog no longer holds stays selectable, marked, so saving an edit unchanged says why instead of silently
 * switching the agent to another model.
 */
function modelChoice(models: readonly string[], current: string | undefined): Html {
  const options = current && !models.includes(current) ? [...models, current] : models;
  return html`<label>Model <select name="model" required>${current ? "" : html`<option value="">(choose a model)</option>`}${options.map(
    (m) =>
      html`<option value="${m}"${m === current ? html` selected` : ""}>${m}${models.includes(m) ? "" : " (not in the model catalog)"}</option>`,
  )}</select></label>`;
}

/**
 * Remove asks first: the button leads to a page that says what goes with the item (an agent's rules, a toolkit's
 * approvers), and only that page's button removes it (a GET changes nothing).
 */
const del = (_csrf: string, kind: AdminKind, fields: Record<string, string>, label = "Remove"): Html =>
  html`<form class="inline" method="get" action="/admin/${kind}/remove">${Object.entries(fields).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  )}<button type="submit">${label}…</button></form>`;

/** The confirmation page of a removal: what will be removed, then the one button that does it. */
export function removeConfirm(
  csrf: string,
  kind: AdminKind,
  fields: Record<string, string>,
  what: string,
  consequences: readonly string[],
): Html {
  return html`<p>Remove ${what}?</p>
${consequences.length > 0 ? html`<p>This also removes:</p><ul>${consequences.map((c) => html`<li>${c}</li>`)}</ul>` : ""}
<p class="note">The change is recorded in the audit log with the item as it was.</p>
<form class="inline" method="post" action="/admin/${kind}/delete">${csrfField(csrf)}${Object.entries(
    fields,
  ).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  )}<input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">Remove</button></form>
<a href="/admin#${kind}">Keep it</a>`;
}

const check = (name: string, label: string, on: boolean): Html =>
  html`<label><input type="checkbox" name="${name}" value="on"${on ? html` checked` : ""}> ${label}</label>`;

/** A closed choice (a schema enum): the stored value is selected, so saving the form unchanged keeps it. */
const choice = (
  name: string,
  label: string,
  options: readonly (readonly [string, string])[],
  current: string,
): Html =>
  html`<label>${label} <select name="${name}">${options.map(
    ([value, text]) =>
      html`<option value="${value}"${value === current ? html` selected` : ""}>${text}</option>`,
  )}</select></label>`;

const issuesFor = (kind: AdminKind, o: AdminViewOptions): Html =>
  o.issues?.kind === kind
    ? html`<div class="issues" role="alert"><p>Not saved. Fix:</p><ul>${o.issues.issues.map((i) => html`<li><code>${i.path}</code>: ${i.message}</li>`)}</ul></div>`
    : html``;

export function agentForm(
  csrf: string,
  a: Partial<AgentItem> | null,
  mode: "create" | "edit",
  models: readonly string[],
): Html {
  // A refused form comes back with what was typed, which may not be a number: shown as typed.
  const num = (v: unknown) => (v === undefined || v === null ? "" : String(v));
  return html`<form method="post" action="/admin/agents/${mode === "create" ? "add" : "edit"}">${csrfField(csrf)}
<label>Address ${mode === "edit" ? html`<input type="hidden" name="address" value="${a?.address ?? ""}"><code>${a?.address ?? ""}</code>` : html`<input type="text" name="address" value="${a?.address ?? ""}" required>`}</label>
<label>Name <input type="text" name="name" value="${a?.name ?? ""}" required></label>
${modelChoice(models, a?.model)}
<label>Instructions <textarea name="instructions" rows="4">${a?.instructions ?? ""}</textarea></label>
<label>Max rounds <input type="text" name="maxRounds" value="${num(a?.maxRounds ?? a?.maxToolTurns)}" inputmode="numeric"></label>
<label>Runs per day <input type="text" name="runsPerDay" value="${num(a?.runsPerDay)}" inputmode="numeric"></label>
<label>Tokens per day <input type="text" name="tokensPerDay" value="${num(a?.tokensPerDay)}" inputmode="numeric"></label>
${check("enabled", "enabled", a?.enabled ?? true)}
${check("acceptAutoSubmitted", "accept auto-submitted mail", a?.acceptAutoSubmitted ?? false)}
${check("acceptListMail", "accept mailing-list mail", a?.acceptListMail ?? false)}
${check("acceptBcc", "accept Bcc (mail that does not name the agent in a signed To/Cc)", a?.acceptBcc ?? false)}
${check("requireSignedAddressing", "require signed addressing (refuse mail whose signature covers no To/Cc naming the agent: Outlook, Microsoft 365, iCloud Cc)", a?.requireSignedAddressing ?? false)}
${check("continueAfterReply", "keep working after a reply (another model round; by default a reply ends the run)", a?.continueAfterReply ?? false)}
<button type="submit">${mode === "create" ? "Add agent" : "Save agent"}</button></form>`;
}

export function toolkitForm(csrf: string, k: Partial<ToolkitItem> | null, mode: "create" | "edit"): Html {
  return html`<form method="post" action="/admin/toolkits/${mode === "create" ? "add" : "edit"}">${csrfField(csrf)}
<label>Id ${mode === "edit" ? html`<input type="hidden" name="id" value="${k?.id ?? ""}"><code>${k?.id ?? ""}</code>` : html`<input type="text" name="id" value="${k?.id ?? ""}" required>`}</label>
<label>Name <input type="text" name="name" value="${k?.name ?? ""}"></label>
<label>Tools (comma-separated) <input type="text" name="tools" value="${(k?.tools ?? []).join(", ")}"></label>
<label>Agents (comma-separated) <input type="text" name="agents" value="${(k?.agents ?? []).join(", ")}"></label>
<label>Sender gate (one rule a line: <code>allow pattern</code> or <code>deny pattern</code>) <textarea name="senderRules" rows="3">${(k?.senderRules ?? []).map((r) => `${r.effect} ${r.pattern}`).join("\n")}</textarea></label>
${check("allowScheduled", "usable on scheduled runs", k?.allowScheduled ?? false)}
${check("confirmBySender", "confirm cards go to the verified sender", k?.confirmBySender ?? false)}
${check("system", "system toolkit (maintained by `postern toolkits sync`)", k?.system ?? false)}
${choice(
  "archiveScope",
  "Stored mail its tools may read",
  [
    ["sender", "sender: only what the run's proven sender could already see"],
    ["agent", "agent: the agent's whole archive (staff toolkits; closes the run's channels, G18)"],
  ],
  k?.archiveScope ?? "sender",
)}
<label>Hosts reachable once a run's channels are closed (comma-separated, G18) <input type="text" name="egressHosts" value="${(k?.egressHosts ?? []).join(", ")}"></label>
<button type="submit">${mode === "create" ? "Add toolkit" : "Save toolkit"}</button></form>`;
}

export function responsibilityForm(
  csrf: string,
  r: Partial<ResponsibilityItem> | null,
  mode: "create" | "edit",
): Html {
  return html`<form method="post" action="/admin/responsibilities/${mode === "create" ? "add" : "edit"}">${csrfField(csrf)}
<label>Id ${mode === "edit" ? html`<input type="hidden" name="id" value="${r?.id ?? ""}"><code>${r?.id ?? ""}</code>` : html`<input type="text" name="id" value="${r?.id ?? ""}" required>`}</label>
<label>Agent <input type="text" name="agent" value="${r?.agent ?? ""}" required></label>
<label>Schedule <input type="text" name="schedule" value="${r?.schedule ?? ""}" placeholder="rate(1 day) or cron(0 9 ? * MON-FRI *)" required></label>
<label>Prompt <textarea name="prompt" rows="3">${r?.prompt ?? ""}</textarea></label>
${check("enabled", "enabled", r?.enabled ?? true)}
${choice(
  "archiveScope",
  "Stored mail its tools may read",
  [
    ["none", "none"],
    ["agent", "agent: the agent's whole archive (closes the run's channels, G18)"],
  ],
  r?.archiveScope ?? "none",
)}
<button type="submit">${mode === "create" ? "Add responsibility" : "Save responsibility"}</button></form>`;
}

const agentOptions = (s: AdminSnapshot, current: string): Html =>
  html`<select name="agent">${s.agents.map((a) => html`<option value="${a.address}"${a.address === current ? html` selected` : ""}>${a.address}</option>`)}</select>`;
const effectOptions = (current: string): Html =>
  html`<select name="effect">${["allow", "deny"].map((e) => html`<option value="${e}"${e === current ? html` selected` : ""}>${e}</option>`)}</select>`;

export function adminView(s: AdminSnapshot, o: AdminViewOptions): Html {
  if (!o.canWrite)
    return html`<p>You are signed in as a viewer: the admin tables are shown on each agent's page; changing them needs the <code>admins</code> group.</p>`;
  const { csrf } = o;
  return html`
<p class="note">Changes are validated exactly as <code>postern admin import</code> validates a document, take effect on the next mail, and are recorded in the <a href="/audit">audit log</a>.</p>
<h2 id="agents">Agents</h2>
${issuesFor("agents", o)}
<table><thead><tr><th>Address</th><th>Name</th><th>Model</th><th>Enabled</th><th></th></tr></thead><tbody>
${s.agents.map(
  (
    a,
  ) => html`<tr><td>${a.address}</td><td>${a.name}</td><td>${a.model}</td><td>${a.enabled ? "yes" : "no"}</td>
<td><a href="/admin/agents/edit?address=${seg(a.address)}">Edit</a> ${del(csrf, "agents", { address: a.address })}</td></tr>`,
)}</tbody></table>
<details${typed("agents", o) ? html` open` : ""}><summary>Add an agent</summary>${agentForm(csrf, typed("agents", o) as Partial<AgentItem> | null, "create", o.models)}</details>

<h2 id="accessRules">Access rules</h2>
${issuesFor("accessRules", o)}
<table><thead><tr><th>Agent</th><th>Effect</th><th>Pattern</th><th></th></tr></thead><tbody>
${s.accessRules.map(
  (r) => html`<tr><td>${r.agent}</td><td>${r.effect}</td><td><code>${r.pattern}</code></td>
<td>${"failClosedFor" in r ? html`<span class="issues">fail-closed stand-in for an invalid item</span>` : del(csrf, "accessRules", { agent: r.agent, effect: r.effect, pattern: r.pattern })}</td></tr>`,
)}</tbody></table>
<form method="post" action="/admin/accessRules/add">${csrfField(csrf)}
<fieldset><legend>Add a rule</legend>
<label>Agent ${agentOptions(s, str(typed("accessRules", o)?.agent))}</label>
<label>Pattern <input type="text" name="pattern" value="${str(typed("accessRules", o)?.pattern)}" placeholder="joe@example.com, *@example.com, *@**.example.com, *" required></label>
<label>Effect ${effectOptions(str(typed("accessRules", o)?.effect))}</label>
<button type="submit">Add rule</button></fieldset></form>

<h2 id="outboundRules">Outbound rules</h2>
<p class="note">Where each agent's mail may go beyond a reply's own participants (a new mail, an address the model adds). Deny wins; any allow rule makes the agent an allow list; without one, a run started by mail writes to nobody else (not even the registered domains) and a scheduled run only to addresses at the registered domains.</p>
${issuesFor("outboundRules", o)}
<table><thead><tr><th>Agent</th><th>Effect</th><th>Pattern</th><th></th></tr></thead><tbody>
${s.outboundRules.map(
  (r) => html`<tr><td>${r.agent}</td><td>${r.effect}</td><td><code>${r.pattern}</code></td>
<td>${"failClosedFor" in r ? html`<span class="issues">fail-closed stand-in for an invalid item</span>` : del(csrf, "outboundRules", { agent: r.agent, effect: r.effect, pattern: r.pattern })}</td></tr>`,
)}</tbody></table>
<form method="post" action="/admin/outboundRules/add">${csrfField(csrf)}
<fieldset><legend>Add an outbound rule</legend>
<label>Agent ${agentOptions(s, str(typed("outboundRules", o)?.agent))}</label>
<label>Pattern <input type="text" name="pattern" value="${str(typed("outboundRules", o)?.pattern)}" placeholder="partner@example.com, *@example.com, *@**.example.com, *" required></label>
<label>Effect ${effectOptions(str(typed("outboundRules", o)?.effect))}</label>
<button type="submit">Add outbound rule</button></fieldset></form>

<h2 id="toolkits">Toolkits</h2>
${issuesFor("toolkits", o)}
<table><thead><tr><th>Id</th><th>Tools</th><th>Agents</th><th></th></tr></thead><tbody>
${s.toolkits.map(
  (
    k,
  ) => html`<tr><td>${k.id}${k.system ? html` <span class="note">(system)</span>` : ""}</td><td>${k.tools.join(", ")}</td><td>${k.agents.join(", ")}</td>
<td><a href="/admin/toolkits/edit?id=${seg(k.id)}">Edit</a> ${del(csrf, "toolkits", { id: k.id })}</td></tr>`,
)}</tbody></table>
<details${typed("toolkits", o) ? html` open` : ""}><summary>Add a toolkit</summary>${toolkitForm(csrf, typed("toolkits", o) as Partial<ToolkitItem> | null, "create")}</details>

<h2 id="approvers">Approvers</h2>
${issuesFor("approvers", o)}
<table><thead><tr><th>Toolkit</th><th>Address</th><th></th></tr></thead><tbody>
${s.approvers.map(
  (p) =>
    html`<tr><td>${p.toolkit}</td><td>${p.address}</td><td>${del(csrf, "approvers", { toolkit: p.toolkit, address: p.address })}</td></tr>`,
)}</tbody></table>
<form method="post" action="/admin/approvers/add">${csrfField(csrf)}
<fieldset><legend>Add an approver</legend>
<label>Toolkit <select name="toolkit">${s.toolkits.map((k) => html`<option value="${k.id}"${k.id === str(typed("approvers", o)?.toolkit) ? html` selected` : ""}>${k.id}</option>`)}</select></label>
<label>Address <input type="text" name="address" value="${str(typed("approvers", o)?.address)}" required></label>
<button type="submit">Add approver</button></fieldset></form>

<h2 id="responsibilities">Responsibilities</h2>
${issuesFor("responsibilities", o)}
<table><thead><tr><th>Id</th><th>Agent</th><th>Schedule</th><th>Enabled</th><th></th></tr></thead><tbody>
${s.responsibilities.map(
  (
    r,
  ) => html`<tr><td>${r.id}</td><td>${r.agent}</td><td><code>${r.schedule}</code></td><td>${r.enabled ? "yes" : "no"}</td>
<td><a href="/admin/responsibilities/edit?id=${seg(r.id)}">Edit</a> ${del(csrf, "responsibilities", { id: r.id })}</td></tr>`,
)}</tbody></table>
<details${typed("responsibilities", o) ? html` open` : ""}><summary>Add a responsibility</summary>${responsibilityForm(csrf, typed("responsibilities", o) as Partial<ResponsibilityItem> | null, "create")}</details>
${mcpServersView(s.mcpServers)}`;
}

/**
 * MCP servers and their reviewed tools, read-only: registering and reviewing list the live server, which the CLI
 * does (`postern mcp add|review`, docs/mcp.md). A tool whose live definition no longer matches its pin is withheld
 * at run time and shows up on the Failures page (mcp-definition-changed).
 */
function mcpServersView(servers: readonly McpServerItem[]): Html {
  return html`
<h2 id="mcpServers">MCP servers</h2>
<p class="note">Each tool is offered only as reviewed (pinned by a hash of its definition); a changed one is withheld and listed under Failures. Review lists the live server and shows each tool against its pin. https servers here; stdio servers with <code>postern mcp add --command</code> (local stack only).</p>
<table><thead><tr><th>Server</th><th>Transport</th><th>Where</th><th>Auth</th><th>Tool</th><th>Class</th><th>Offered as</th><th>Reviewed</th><th></th></tr></thead><tbody>
${servers.flatMap((m) =>
  (m.tools.length > 0 ? m.tools : [null]).map(
    (t, i) =>
      html`<tr><td>${m.id}${m.enabled ? "" : " (disabled)"}</td><td>${m.transport}</td><td><code>${m.transport === "http" ? (m.url ?? "") : [m.command ?? "", ...m.args].join(" ")}</code></td><td>${m.auth.kind}</td><td>${t?.name ?? "(none reviewed: nothing offered)"}</td><td>${t?.class ?? ""}</td><td>${t?.exposedAs ?? ""}</td><td>${t?.reviewedAt ?? ""}</td>
<td>${i === 0 ? html`${m.transport === "http" ? html`<a href="/mcp/${seg(m.id)}/review">Review</a> ` : ""}<a href="/mcp/${seg(m.id)}/remove">Remove…</a>` : ""}</td></tr>`,
  ),
)}</tbody></table>
<p><a href="/mcp/add">Add an MCP server</a></p>`;
}

export function editIssues(issues: readonly AdminIssue[]): Html {
  return html`<div class="issues" role="alert"><p>Not saved. Fix:</p><ul>${issues.map((i) => html`<li><code>${i.path}</code>: ${i.message}</li>`)}</ul></div>`;
}
