import type { BreakerState, DeliveryEntry, WebhookItem } from "../../shared/webhooks/index.ts";
import { type Html, html, time, untrusted } from "./html.ts";
import { statusBadge } from "./layout.ts";
import { webhookActions, webhookForm } from "./webhook-forms.ts";

/** What an admin may do here (viewers see the endpoints and their deliveries only). */
export interface WebhookWriteOptions {
  readonly csrf: string;
  readonly canWrite: boolean;
  /** The stack has an events queue (a test event can be sent). */
  readonly canTest: boolean;
}

export interface EndpointView {
  readonly webhook: WebhookItem;
  readonly breaker: BreakerState;
  readonly deliveries: readonly DeliveryEntry[];
}

/**
 * Signed events (docs/events.md): each endpoint, its breaker, and its recent deliveries and failures, newest first.
 * A receiver's status and the reason code of every failed attempt (docs/reasons.md); the detail is the receiver's or
 * the network's, shown as untrusted text. No secret is ever read here.
 */
export function webhooksView(endpoints: readonly EndpointView[], now: Date, o: WebhookWriteOptions): Html {
  const add = o.canWrite
    ? html`<details id="add"><summary>Add an endpoint</summary>${webhookForm(o.csrf, null, "create")}</details>`
    : "";
  if (endpoints.length === 0)
    return html`<p>No webhook endpoints. Register one here or with <code>postern webhooks add</code> (docs/events.md).</p>${add}`;
  return html`${add}${endpoints.map(({ webhook: w, breaker, deliveries }) => {
    const open = breaker.openUntil !== undefined && Date.parse(breaker.openUntil) > now.getTime();
    return html`<section id="${w.id}"><h2><code>${w.id}</code> ${w.enabled ? "" : statusBadge("disabled")}</h2>
<p>${untrusted(w.url, { inline: true, max: 300 })} · events: ${w.events.join(", ")} · mail text: ${w.includeMailText ? "yes" : "no"}
· breaker: ${open ? html`${statusBadge("failed")} open until ${time(breaker.openUntil ?? "")}` : "closed"} (${breaker.failures} consecutive failures)</p>
${w.description ? html`<p class="note">${w.description}</p>` : ""}
${o.canWrite ? webhookActions(o.csrf, w, o.canTest) : ""}
${
  deliveries.length === 0
    ? html`<p class="note">No deliveries recorded.</p>`
    : html`<table><thead><tr><th>When</th><th>Event</th><th>Type</th><th>Attempt</th><th>Outcome</th><th>Status</th><th>Reason</th><th>Detail</th><th>ms</th></tr></thead><tbody>
${deliveries.map(
  (
    d,
  ) => html`<tr><td>${time(d.at)}</td><td><code>${d.eventId}</code></td><td>${d.type}</td><td>${d.attempt}</td>
<td>${d.outcome === "delivered" ? d.outcome : html`${statusBadge("failed")} ${d.outcome}`}</td><td>${d.status ?? "-"}</td>
<td>${d.reason ? html`<code>${d.reason}</code>` : "-"}</td><td>${d.detail ? untrusted(d.detail, { inline: true, max: 300 }) : "-"}</td><td>${d.ms ?? "-"}</td></tr>`,
)}</tbody></table>`
}</section>`;
  })}`;
}
