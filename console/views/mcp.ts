import type { AdminIssue } from "../../shared/admin/index.ts";
import {
  definitionHash,
  type McpServerItem,
  type McpToolPin,
  PIN_PREDATES_COVERAGE_TEXT,
  REVIEW_STATE_TEXT,
  type ReviewRow,
} from "../../shared/mcp/index.ts";
import { editIssues } from "./admin.ts";
import { type Html, html, seg, untrusted } from "./html.ts";
import { csrfField, statusBadge } from "./layout.ts";

/**
 * Registering an MCP server (docs/mcp.md): https only, and credentials as references (a Secrets Manager name under
 * postern/mcp/ in AWS, an env-var name locally), never a value (G16). stdio servers stay with the CLI.
 */
export function mcpAddForm(
  csrf: string,
  f: Readonly<Record<string, string>> = {},
  issues: readonly AdminIssue[] = [],
): Html {
  const v = (k: string, d = "") => f[k] ?? d;
  const auth = v("authKind", "none");
  const opt = (value: string, text: string) =>
    html`<option value="${value}"${value === auth ? html` selected` : ""}>${text}</option>`;
  return html`${issues.length > 0 ? editIssues(issues) : ""}<form method="post" action="/mcp/add">${csrfField(csrf)}
<label>Id (prefixes its tools' names) <input type="text" name="id" value="${v("id")}" required></label>
<label>URL (Streamable HTTP, https) <input type="url" name="url" value="${v("url")}" required></label>
<fieldset><legend>Authentication (a secret's name, never its value)</legend>
<label>Kind <select name="authKind">${opt("none", "none")}${opt("bearer", "bearer token")}${opt("oauth", "OAuth client credentials")}</select></label>
<label>Bearer token: where it is (<code>secretsmanager:postern/mcp/&lt;name&gt;</code> or an env var ending <code>_TOKEN</code>, <code>_KEY</code>, <code>_SECRET</code>) <input type="text" name="bearerSecret" value="${v("bearerSecret")}"></label>
<label>OAuth token URL <input type="url" name="oauthTokenUrl" value="${v("oauthTokenUrl")}"></label>
<label>OAuth client id <input type="text" name="oauthClientId" value="${v("oauthClientId")}"></label>
<label>OAuth client secret: where it is (as for the bearer token) <input type="text" name="oauthSecret" value="${v("oauthSecret")}"></label>
<label>OAuth scope <input type="text" name="oauthScope" value="${v("oauthScope")}"></label>
</fieldset>
<label>Timeout per call and listing, ms (default 15000) <input type="text" name="timeoutMs" value="${v("timeoutMs")}" inputmode="numeric"></label>
<label>Calls per run (default 20) <input type="text" name="maxCallsPerRun" value="${v("maxCallsPerRun")}" inputmode="numeric"></label>
<label>Data classes its results carry (comma-separated, for the egress gate) <input type="text" name="dataClasses" value="${v("dataClasses")}"></label>
<label><input type="checkbox" name="recordContent" value="on"${v("recordContent", "on") === "on" ? html` checked` : ""}> its results are record content (an external model never receives them)</label>
<button type="submit">Connect and list its tools</button></form>
<p class="note">Nothing is saved yet: the next page lists the server's tools for review, and nothing is offered until you choose.</p>`;
}

const CLASSES: readonly (readonly [string, string])[] = [
  ["none", "not offered"],
  ["read", "read: runs in the loop"],
  ["act", "act: an approver confirms each call (G14)"],
  ["restricted", "restricted: runs, then closes the run's channels (G18)"],
];

const STATE_BADGE = { reviewed: "applied", changed: "failed", unreviewed: "pending" } as const;

function toolRow(serverId: string, i: number, row: ReviewRow): Html {
  const { tool: t, state, pin } = row;
  // A changed tool is withheld: nothing is pre-chosen for it, the operator reads what changed and decides again.
  const current = state === "reviewed" && pin ? pin.class : "none";
  const claims = (what: string) => ({ kind: "server" as const, name: serverId, what });
  return html`<section class="tool"><h3>${untrusted(t.name, { inline: true, max: 128, by: claims("the tool's name") })} ${statusBadge(STATE_BADGE[state])} ${REVIEW_STATE_TEXT[state]}${pin ? html` <span class="note">(reviewed as ${pin.class}, offered as <code>${pin.exposedAs}</code>)</span>` : ""}</h3>
<input type="hidden" name="tool.${i}.name" value="${t.name}"><input type="hidden" name="tool.${i}.hash" value="${definitionHash(t)}">
${row.pinPredatesCoverage ? html`<p class="note">${PIN_PREDATES_COVERAGE_TEXT}</p>` : ""}
${state === "changed" && pin && pin.description !== (t.description ?? "") ? untrusted(pin.description, { max: 8000, by: claims("the description as reviewed") }) : ""}
${t.title !== undefined ? untrusted(t.title, { max: 1000, by: claims("the title") }) : ""}
${untrusted(t.description ?? "", { max: 8000, by: claims("the description") })}
${untrusted(JSON.stringify(t.inputSchema ?? {}, null, 2), { max: 20000, by: claims("the input schema") })}
${t.outputSchema !== undefined ? untrusted(JSON.stringify(t.outputSchema, null, 2), { max: 20000, by: claims("the output schema") }) : ""}
${t.annotations ? untrusted(JSON.stringify(t.annotations, null, 2), { max: 4000, by: claims("the annotations") }) : ""}
<label>Class <select name="tool.${i}.class">${CLASSES.map(([value, text]) => html`<option value="${value}"${value === current ? html` selected` : ""}>${text}</option>`)}</select></label>
<label>Offered as (default <code>${serverId}_…</code> in snake_case) <input type="text" name="tool.${i}.exposedAs" value="${pin?.exposedAs ?? ""}"></label>
<label>Input property filled with the proven sender, hidden from the model (G17; optional) <input type="text" name="tool.${i}.principal" value="${pin?.principalArgument ?? ""}"></label>
</section>`;
}

/**
 * The review page: every listed tool with its state against the pins, the server's words (name, description,
 * schema, annotations) as untrusted text, and the operator's choice per tool. Saving pins exactly the chosen tools as
 * this page listed them (the hidden hash: a definition that changed before the save is refused, not pinned).
 */
export function mcpReviewPage(
  csrf: string,
  server: McpServerItem,
  mode: "add" | "review",
  review: { readonly rows: readonly ReviewRow[]; readonly gone: readonly McpToolPin[] },
  issues: readonly AdminIssue[] = [],
): Html {
  return html`${issues.length > 0 ? editIssues(issues) : ""}
<p><code>${server.id}</code> at <code>${server.url ?? ""}</code>, auth ${server.auth.kind}: ${review.rows.length} tools listed.</p>
<p class="note">Descriptions, schemas and annotations are the server's claims: a poisoned description is shown here, never acted on, and the class you choose is what the gates apply (docs/mcp.md). Only the tools you give a class are offered; the rest are never offered. Tools the server no longer lists are dropped on save.</p>
<form method="post" action="/mcp/save">${csrfField(csrf)}<input type="hidden" name="mode" value="${mode}">
${mode === "add" ? html`<input type="hidden" name="server" value="${JSON.stringify({ ...server, tools: [] })}">` : html`<input type="hidden" name="id" value="${server.id}">`}
${review.rows.map((row, i) => toolRow(server.id, i, row))}
${review.gone.map((p) => html`<section class="tool"><h3><code>${p.name}</code> ${statusBadge("failed")} ${REVIEW_STATE_TEXT.gone}</h3></section>`)}
<button type="submit">Save: pin the chosen tools</button></form>
<p><a href="/admin#mcpServers">Cancel</a></p>`;
}

export function mcpRemoveConfirm(csrf: string, id: string): Html {
  return html`<p>Remove the MCP server <code>${id}</code>?</p>
<p>Its tools are offered nowhere from the next delivery on; toolkits that name them grant nothing by those names.</p>
<p class="note">The change is recorded in the audit log with the server as it was.</p>
<form class="inline" method="post" action="/mcp/${seg(id)}/delete">${csrfField(csrf)}<input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">Remove</button></form>
<a href="/admin#mcpServers">Keep it</a>`;
}
