import type { Page, RefusalRecord } from "../../shared/ports/index.ts";
import { addressChars, type Html, html, pager, seg, time } from "./html.ts";

/**
 * Refused and dropped mail (G4): time, verdict, reason code, agent and addresses reduced to address characters.
 * The stored verdict record holds no subject, body or display name, and nothing here reads the raw mail.
 */
export function refusalsView(
  page: Page<RefusalRecord>,
  reason: string | undefined,
  opts: { canDownload: boolean },
): Html {
  const reasons = [...new Set(page.items.map((r) => r.reason ?? ""))].filter(Boolean).sort();
  return html`
<form method="get" action="/refusals">
  <label>Reason code <input type="text" name="reason" value="${reason ?? ""}" pattern="[a-z0-9-]{1,64}" placeholder="e.g. signature-misaligned"></label>
  <button type="submit">Filter</button> ${reason ? html`<a href="/refusals">show all</a>` : ""}
</form>
${reasons.length > 0 && !reason ? html`<p class="note">On this page: ${reasons.map((r) => html`<a href="/refusals?reason=${seg(r)}">${r}</a> `)}</p>` : ""}
${
  page.items.length === 0
    ? html`<p>No refused or dropped mail${reason ? html` with reason <code>${reason}</code>` : ""} in the last 90 days.</p>`
    : html`<table><thead><tr><th>Decided</th><th>Verdict</th><th>Reason</th><th>Agent</th><th>Recipient</th><th>Sender</th><th>Raw mail</th></tr></thead><tbody>
${page.items.map(
  (
    r,
  ) => html`<tr><td>${time(r.refusalAt)}</td><td>${r.verdict === "drop" ? "dropped" : "refused"}</td><td><code>${addressChars(r.reason)}</code>${r.detail ? html`<br><span class="note">${r.detail}</span>` : ""}</td>
<td>${r.agent ? html`<a href="/agents/${seg(r.agent)}">${addressChars(r.agent)}</a>` : "-"}</td><td>${addressChars(r.recipient)}</td>
<td>${r.sender ? addressChars(r.sender) : html`<span class="note">not proven</span>`}</td>
<td>${opts.canDownload ? html`<a href="/raw/${seg(r.sesMessageId)}" download>.eml</a>` : html`<span class="note">admins only</span>`} <code class="id">${addressChars(r.sesMessageId)}</code></td></tr>`,
)}</tbody></table>`
}
${pager("/refusals", page.next, reason ? { reason } : {})}`;
}
