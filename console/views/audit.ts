import type { AuditEntry, Page } from "../../shared/ports/index.ts";
import { type Html, html, pager, time } from "./html.ts";

export function auditView(page: Page<AuditEntry>): Html {
  if (page.items.length === 0)
    return html`<p>No admin change has been made yet, in the console or with the CLI.</p>`;
  const json = (v: unknown) => (v === null || v === undefined ? "(none)" : JSON.stringify(v, null, 2));
  return html`<table><thead><tr><th>When</th><th>Who</th><th>Action</th><th>Table</th><th>Key</th><th>Outcome</th><th>Before → after</th></tr></thead><tbody>
${page.items.map(
  (
    e,
  ) => html`<tr><td>${time(e.at.split("#")[0])}</td><td>${e.actor}</td><td>${e.action}</td><td>${e.table}</td><td><code>${e.key}</code></td>
<td>${e.outcome}${e.detail ? html`<div class="note">${e.detail}</div>` : ""}</td>
<td><details><summary>show</summary><p>before</p><pre class="mono">${json(e.before)}</pre><p>after</p><pre class="mono">${json(e.after)}</pre></details></td></tr>`,
)}</tbody></table>${pager("/audit", page.next)}`;
}
