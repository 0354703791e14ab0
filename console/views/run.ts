import type { PlanRecord, RunRecord, SendSummary } from "../../shared/ports/index.ts";
import { type TimelineItem, timelineTree } from "../../shared/trace/index.ts";
import { failureCell } from "./agents.ts";
import { type Html, html, seg, time, untrusted } from "./html.ts";
import { statusBadge } from "./layout.ts";

export interface RunView {
  readonly run: RunRecord;
  readonly items: readonly TimelineItem[];
  readonly plan: PlanRecord | null;
  /** Outbound mail the run caused, keyed by the event seq of the tool result that queued it. */
  readonly sends: ReadonlyMap<number, SendSummary>;
  /** Tool results as the model read them, keyed by the event seq of their `tool-result` event. */
  readonly results: ReadonlyMap<number, ShownResult>;
  readonly card: SendSummary | null;
  readonly continuation: RunRecord | null;
}

export interface ShownResult {
  readonly tool: string;
  /** The JSON the model was given, pretty-printed. */
  readonly text: string;
  /** Media types of images or documents that went with it (not shown here). */
  readonly attachments: readonly string[];
}

export function runView(v: RunView): Html {
  const r = v.run;
  return html`
<table>
<tr><th>Agent</th><td><a href="/agents/${seg(r.agent)}">${r.agent}</a></td></tr>
<tr><th>Kind</th><td>${r.kind}${r.responsibilityId ? ` (responsibility ${r.responsibilityId})` : ""}</td></tr>
<tr><th>State</th><td>${r.state}${r.finishReason ? ` (${r.finishReason})` : ""}, round ${r.round} of at most ${r.maxRounds}</td></tr>
${r.failure ? html`<tr><th>Failure</th><td>${failureCell(r)} <span class="note">(docs/reasons.md; every failure: <a href="/failures">Failures</a>)</span></td></tr>` : ""}
<tr><th>Sender</th><td>${r.sender ?? "(scheduled: no sender)"}</td></tr>
<tr><th>Created</th><td>${time(r.createdAt)}</td></tr>
<tr><th>Correlation</th><td><code>${r.correlationId}</code></td></tr>
${r.threadId ? html`<tr><th>Thread</th><td><a href="/agents/${seg(r.agent)}/threads/${seg(r.threadId)}">open the thread</a></td></tr>` : ""}
${v.plan ? html`<tr><th>Plan</th><td><a href="/plans/${seg(r.runId)}">${v.plan.state}${v.plan.state === "failed" && v.plan.failedReason ? ` (${v.plan.failedReason})` : ""}, ${v.plan.ops.length} operation(s)</a></td></tr>` : ""}
${v.continuation ? html`<tr><th>Continued by</th><td><a href="/runs/${seg(v.continuation.runId)}"><code>${v.continuation.runId}</code></a> (after the approved plan ran)</td></tr>` : ""}
</table>
<h2>Timeline</h2>
<p class="note">In the order it happened. Each box says who wrote its text: the model (its words and the tool inputs it chose, shaped by the mail it read) or a tool (its result, exactly as the model read it).</p>
<ol class="timeline">
${timelineTree(v.items).map((node) =>
  node.kind === "item"
    ? itemView(node.item, v)
    : html`<li class="round">Round ${node.round}${node.continued ? " (continued)" : ""}<ol>${node.items.map((i) => itemView(i, v))}</ol></li>`,
)}
</ol>
${v.card ? html`<h2>Confirm card</h2><p>${sendLine(v.card, r.agent)}</p>` : ""}`;
}

function itemView(item: TimelineItem, v: RunView): Html {
  const d = item.data;
  const send = v.sends.get(item.seq);
  const result = v.results.get(item.seq);
  return html`<li data-type="${item.type}">${time(item.at)} ${statusBadge(item.status)} ${item.text}
${item.type === "model-turn" && typeof d.text === "string" && d.text ? untrusted(d.text, { max: 2000, by: { kind: "model" } }) : ""}
${item.type === "tool-call" && d.input !== undefined ? html`<details><summary>input</summary>${untrusted(JSON.stringify(d.input, null, 2), { max: 8000, by: { kind: "model" } })}</details>` : ""}
${result ? html`<details><summary>result</summary>${untrusted(result.text, { max: 70_000, by: { kind: "tool", name: result.tool } })}${result.attachments.length > 0 ? html`<p class="note">with ${result.attachments.join(", ")} (not shown)</p>` : ""}</details>` : ""}
${item.type === "model-failure" && typeof d.detail === "string" ? html`<div class="note">${d.detail}</div>` : ""}
${send ? html`<div>→ ${sendLine(send, v.run.agent)}</div>` : ""}
</li>`;
}

function sendLine(s: SendSummary, agent: string): Html {
  const link =
    s.threadId && s.mailboxId
      ? html` <a href="/agents/${seg(agent)}/threads/${seg(s.threadId)}#m-${s.mailboxId}">the sent mail</a>`
      : "";
  // The detail may name an address the model wrote: inline untrusted text. A request refused before it was prepared has no plan, so no recipient count: its reason says why (G19).
  const why = s.reason
    ? html` (<code>${s.reason}</code>${s.detail ? html`: ${untrusted(s.detail, { inline: true, max: 500 })}` : ""}; see docs/reasons.md)`
    : "";
  const count = s.state === "failed" && s.recipients === 0 ? "" : html`, ${s.recipients} recipient(s)`;
  return html`outbound mail <code>${s.requestId}</code>: ${s.state}${why}${s.sentAt ? html`, sent ${time(s.sentAt)}` : ""}${count}.${link}`;
}
