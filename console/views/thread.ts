import type { MessageRecord, ThreadRecord } from "../../shared/ports/index.ts";
import { type Author, bytes, type Html, html, seg, time, untrusted } from "./html.ts";

export interface ShownMessage {
  readonly message: MessageRecord;
  /** The stored plain-text body, or null when there is none (HTML-only mail shows none, G8). */
  readonly body: string | null;
  /** The reply run this inbound message started (derived id; it may not exist, e.g. for a plan confirmation). */
  readonly runId: string | null;
}

export function threadView(
  agent: string,
  thread: ThreadRecord | null,
  messages: readonly ShownMessage[],
  opts: { canDownload: boolean; more: Html; me: string },
): Html {
  return html`
<p class="note">Agent <a href="/agents/${seg(agent)}">${agent}</a>${thread ? html`, ${thread.messageCount} message(s), last ${time(thread.lastMessageAt)}` : ""}.
Every text is shown as plain text in a dashed box that says who wrote it (the sender, you, or the agent); nothing in it is a link or markup.</p>
${messages.map((m) => messageView(agent, m, opts))}
${opts.more}`;
}

function messageView(agent: string, shown: ShownMessage, opts: { canDownload: boolean; me: string }): Html {
  const { canDownload } = opts;
  const m = shown.message;
  const inbound = m.direction === "in";
  const by: Author = !inbound
    ? { kind: "agent", address: m.from }
    : m.from.toLowerCase() === opts.me
      ? { kind: "you", address: m.from }
      : { kind: "sender", address: m.from };
  return html`<section class="msg ${inbound ? "in" : "out"}" id="m-${m.id}">
<p><strong>${inbound ? "Inbound" : "Sent by the agent"}</strong> · ${time(m.at)}
${inbound && shown.runId ? html` · <a href="/runs/${seg(shown.runId)}">run</a>` : ""}
${inbound && m.sesMessageId && canDownload ? html` · <a href="/raw/${seg(m.sesMessageId)}" download>raw mail (.eml)</a>` : ""}</p>
<table>
<tr><th>From</th><td>${m.from}${inbound && m.fromName ? html` · display name ${untrusted(m.fromName, { inline: true, max: 200, by })}` : ""}${inbound ? html` <span class="note">(proven by DKIM)</span>` : ""}</td></tr>
<tr><th>To</th><td>${m.to.join(", ")}</td></tr>
${m.cc.length > 0 ? html`<tr><th>Cc</th><td>${m.cc.join(", ")}</td></tr>` : ""}
<tr><th>Subject</th><td>${untrusted(m.subject ?? "", { inline: true, max: 1000, by })}</td></tr>
<tr><th>Hop</th><td>${m.hop}</td></tr>
</table>
${
  m.hasHtmlOnly
    ? html`<p class="note">HTML-only mail: no plain-text body, nothing shown (as for the model, G8).</p>`
    : shown.body === null
      ? html`<p class="note">(no body stored)</p>`
      : untrusted(shown.body, { by })
}
${
  m.attachments.length > 0
    ? html`<table><thead><tr><th>Attachment</th><th>Type (as sent)</th><th>Size</th><th></th></tr></thead><tbody>
${m.attachments.map(
  (
    a,
  ) => html`<tr><td>${untrusted(a.filename || "(unnamed)", { inline: true, max: 200 })}</td><td>${untrusted(a.contentType, { inline: true, max: 100 })}</td><td>${bytes(a.size)}</td>
<td>${canDownload ? html`<a href="/attachments/${seg(agent)}/${seg(m.id)}/${seg(a.id)}" download>download</a>` : html`<span class="note">admins only</span>`}</td></tr>`,
)}</tbody></table>`
    : ""
}
</section>`;
}
