import type { FailureEntry } from "../../shared/ports/index.ts";
import { type Html, html, seg, time, untrusted } from "./html.ts";
import { statusBadge } from "./layout.ts";

/**
 * G19: every failure that must reach a person, newest first: a send SES or the outbound refused, a confirm card or
 * notice that was not sent, a run that failed. Each row has its reason code (explained in docs/reasons.md) and SES's
 * or the provider's own message. The message may name an address a model wrote: shown as untrusted text.
 */
export function failuresView(items: readonly FailureEntry[], days: number): Html {
  if (items.length === 0) return html`<p>No failures in the last ${days} days.</p>`;
  return html`<p class="note">Each reason code is explained, with what to do, in docs/reasons.md.</p>
<table><thead><tr><th>When</th><th>Class</th><th>Reason</th><th>Agent</th><th>Run</th><th>Request</th><th>Message</th><th>Sender told</th></tr></thead><tbody>
${items.map(
  (
    f,
  ) => html`<tr><td>${time(f.at)}</td><td>${statusBadge("failed")} ${f.class}</td><td><code>${f.reason}</code></td>
<td><a href="/agents/${seg(f.agent)}">${f.agent}</a></td>
<td>${f.runId ? html`<a href="/runs/${seg(f.runId)}"><code>${f.runId}</code></a>` : "-"}</td>
<td>${f.requestId ? html`<code>${f.requestId}</code>` : "-"}</td>
<td>${f.detail ? untrusted(f.detail, { inline: true, max: 500 }) : "-"}</td>
<td>${f.senderNotice ?? "-"}</td></tr>`,
)}</tbody></table>`;
}
