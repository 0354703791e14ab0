import type { AdminIssue } from "../../shared/admin/index.ts";
import { WEBHOOK_EVENT_TYPES, type WebhookItem } from "../../shared/webhooks/index.ts";
import { editIssues } from "./admin.ts";
import { type Html, html, seg } from "./html.ts";
import { csrfField } from "./layout.ts";

const check = (name: string, label: Html | string, on: boolean): Html =>
  html`<label><input type="checkbox" name="${name}" value="on"${on ? html` checked` : ""}> ${label}</label>`;

/**
 * An endpoint's form: every field of the item (shared/admin/webhook-item.ts), so saving it unchanged stores it
 * unchanged. Event types are one checkbox each (a distinct name per type: no repeated form keys to lose), or all.
 */
export function webhookForm(
  csrf: string,
  w: Partial<WebhookItem> | null,
  mode: "create" | "edit",
  issues: readonly AdminIssue[] = [],
): Html {
  const subscribed = new Set(w?.events ?? []);
  const all = mode === "edit" && WEBHOOK_EVENT_TYPES.every((t) => subscribed.has(t));
  const action = mode === "create" ? "/webhooks/add" : `/webhooks/${seg(w?.id ?? "")}/edit`;
  return html`${issues.length > 0 ? editIssues(issues) : ""}<form method="post" action="${action}">${csrfField(csrf)}
<label>Id ${mode === "edit" ? html`<code>${w?.id ?? ""}</code>` : html`<input type="text" name="id" value="${w?.id ?? ""}" required>`}</label>
<label>URL (https; in AWS only public addresses are reached) <input type="url" name="url" value="${w?.url ?? ""}" required></label>
<fieldset><legend>Event types</legend>
${check("allEvents", html`<strong>all</strong> (every type, as <code>--events all</code>)`, all)}
${WEBHOOK_EVENT_TYPES.map((t) => check(`event.${t}`, html`<code>${t}</code>`, !all && subscribed.has(t)))}
</fieldset>
${check("includeMailText", "include accepted mail's subject and text (off: ids and reason codes only)", w?.includeMailText ?? false)}
${check("enabled", "enabled", w?.enabled ?? true)}
<label>Description <input type="text" name="description" value="${w?.description ?? ""}" maxlength="200"></label>
<button type="submit">${mode === "create" ? "Add endpoint" : "Save endpoint"}</button></form>
${mode === "create" ? html`<p class="note">The signing secret is made on the server and shown once, on the next page.</p>` : ""}`;
}

/** An endpoint's actions for an admin: edit, rotate its secret, send a test event, remove (asks first). */
export function webhookActions(csrf: string, w: WebhookItem, canTest: boolean): Html {
  const id = seg(w.id);
  return html`<p class="actions"><a href="/webhooks/${id}/edit">Edit</a>
<form class="inline" method="post" action="/webhooks/${id}/rotate">${csrfField(csrf)}<label>old secret valid for <input type="text" name="overlapHours" value="24" inputmode="numeric" size="3"> h</label> <button type="submit">Rotate secret</button></form>
${canTest ? html`<form class="inline" method="post" action="/webhooks/${id}/test">${csrfField(csrf)}<button type="submit">Send test event</button></form>` : ""}
<a href="/webhooks/${id}/remove">Remove…</a></p>`;
}

/**
 * The one time a signing secret is shown (G16): on this page, served `no-store`, and never again. It is not in the
 * admin table, the audit log or any log line; a lost secret is replaced by rotating.
 */
export function secretOnce(id: string, secret: string, what: "added" | "rotated", until?: string): Html {
  return html`<p>${what === "added" ? html`The endpoint <code>${id}</code> is registered.` : html`The endpoint <code>${id}</code> has a new signing secret.`} Its signing secret, shown this once:</p>
<p><code class="secret">${secret}</code></p>
${until ? html`<p>Until ${until} every delivery carries two signatures, one with the old secret and one with this one: switch the receiver over before then.</p>` : ""}
<p class="note">Give it to the receiver now (a Standard Webhooks library verifies with it). The console cannot show it again: it is kept in Secrets Manager (locally the stack's secrets file), never in the admin table, the audit log or a log line. Lost it? Rotate.</p>
<p><a href="/webhooks#${id}">Back to the webhooks</a></p>`;
}

/** Remove asks first: only this page's form carries `confirm=yes`. */
export function webhookRemoveConfirm(csrf: string, id: string): Html {
  return html`<p>Remove the webhook endpoint <code>${id}</code>?</p>
<p>This also removes its signing secrets; deliveries still queued for it are dropped.</p>
<p class="note">The change is recorded in the audit log with the endpoint as it was (never its secret).</p>
<form class="inline" method="post" action="/webhooks/${seg(id)}/delete">${csrfField(csrf)}<input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">Remove</button></form>
<a href="/webhooks#${id}">Keep it</a>`;
}
