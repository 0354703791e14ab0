import { canonicalJson } from "../../shared/agent/index.ts";
import {
  type Page,
  type PlanOpResult,
  type PlanRecord,
  proofLine,
  type RequesterProof,
} from "../../shared/ports/index.ts";
import type { ToolRegistry } from "../../shared/tool-framework/index.ts";
import { type Html, html, pager, seg, time, untrusted } from "./html.ts";
import { csrfField, statusBadge } from "./layout.ts";

/** A decision made in the console, before agent-step has acted on it. */
export interface PlanDecisionShown {
  readonly decision: "approve" | "cancel";
  readonly by: string;
  readonly at: string;
}

const decisionLine = (d: PlanDecisionShown): Html =>
  html`<strong>${d.decision === "approve" ? "being applied" : "being cancelled"}</strong> (${d.decision === "approve" ? "Apply" : "Cancel"} by ${d.by}, ${time(d.at)})`;

export function plansView(
  page: Page<PlanRecord>,
  decided: ReadonlyMap<string, PlanDecisionShown | null> = new Map(),
): Html {
  if (page.items.length === 0) return html`<p>No plan is waiting for an approver.</p>`;
  return html`<div class="scroll"><table><thead><tr><th>Proposed</th><th>Agent</th><th>Asked by</th><th>Run</th><th>Operations</th><th>Expires</th><th>State</th></tr></thead><tbody>
${page.items.map((p) => {
  const d = decided.get(p.runId);
  return html`<tr><td>${time(p.planAt)}</td><td>${p.agent}</td><td>${askedByCell(p.requester)}</td><td><a href="/plans/${seg(p.runId)}"><code>${p.runId}</code></a></td>
<td>${p.ops.map((o) => o.tool).join(", ")}</td><td>${time(p.expiresAtIso)}</td><td>${d ? decisionLine(d) : "waiting for an approver"}</td></tr>`;
})}</tbody></table></div>${pager("/plans", page.next)}`;
}

/** The confirm card in the browser: the exact stored arguments (escaped), the approvers, the expiry. */
export function planView(
  plan: PlanRecord,
  opts: {
    approvers: readonly string[];
    mayDecide: boolean;
    csrf: string;
    registry: ToolRegistry;
    now: Date;
    decision?: PlanDecisionShown | null;
  },
): Html {
  const expired = plan.expiresAtIso !== undefined && opts.now.toISOString() > plan.expiresAtIso;
  // Decided in the console and not yet acted on: say so, and offer nothing more to click.
  const pendingDecision = plan.state === "pending" && opts.decision ? opts.decision : null;
  return html`
<table>
<tr><th>State</th><td>${pendingDecision ? html`${decisionLine(pendingDecision)}; <a href="/plans/${seg(plan.runId)}">reload</a> to see it done` : stateLine(plan, expired)}</td></tr>
${plan.decidedAt ? html`<tr><th>Decided</th><td>${time(plan.decidedAt)}</td></tr>` : ""}
${plan.finishedAt ? html`<tr><th>Finished</th><td>${time(plan.finishedAt)}</td></tr>` : ""}
<tr><th>Agent</th><td><a href="/agents/${seg(plan.agent)}">${plan.agent}</a></td></tr>
<tr><th>Run</th><td><a href="/runs/${seg(plan.runId)}"><code>${plan.runId}</code></a></td></tr>
<tr><th>Expires</th><td>${time(plan.expiresAtIso)}</td></tr>
<tr><th>Approvers</th><td>${opts.approvers.length === 0 ? "none" : opts.approvers.join(", ")}</td></tr>
</table>
${requesterSection(plan)}
<h2>Operations</h2>
<p class="note">${plan.results ? "What was approved, as stored, and what each operation did when it ran; the arguments were written by the model from mail it read." : "Exactly what will run if approved, as stored; the arguments were written by the model from mail it read."}</p>
<ol>${plan.ops.map((o, i) => {
    const tool = opts.registry.get(o.tool);
    const result = plan.results?.find((r) => r.number === i + 1);
    return html`<li><p><strong>${tool?.displayName ?? o.tool}</strong> (<code>${o.tool}</code>)${tool ? html` <span class="note">${tool.summary}</span>` : ""}</p>
${untrusted(JSON.stringify(JSON.parse(canonicalJson(o.input)), null, 2), { max: 20_000, by: { kind: "model" } })}${result ? resultLine(result) : ""}</li>`;
  })}</ol>
${
  plan.state === "pending" && !expired && !pendingDecision
    ? opts.mayDecide
      ? html`<p>Approving runs these operations once, after every gate is checked again; the agent then tells the sender.</p>
<form class="inline" method="post" action="/plans/${seg(plan.runId)}/apply">${csrfField(opts.csrf)}<button type="submit" name="decision" value="approve">Apply</button></form>
<form class="inline" method="post" action="/plans/${seg(plan.runId)}/cancel">${csrfField(opts.csrf)}<button type="submit" name="decision" value="cancel">Cancel</button></form>`
      : html`<p class="note">Only an approver of this plan can apply or cancel it (you are not one).</p>`
    : ""
}`;
}

/** The plan's state as it happened: `failed (<reason>)` when an approved plan did not run as approved (G19). */
function stateLine(plan: PlanRecord, expired: boolean): Html {
  const reason = plan.state === "failed" && plan.failedReason ? ` (${plan.failedReason})` : "";
  return html`<strong class="status s-${plan.state}">${plan.state}${reason}</strong>${expired && plan.state === "pending" ? " (expired)" : ""}${plan.decidedBy ? ` by ${plan.decidedBy}` : ""}`;
}

/** One operation's result, under the operation, numbered as the card numbers it. */
function resultLine(r: PlanOpResult): Html {
  if (r.status === "not-run")
    return html`<p>Result: ${statusBadge("cancelled")} not run: an earlier operation failed, so this one was never started</p>`;
  if (r.status === "ok") return html`<p>Result: ${statusBadge("ok")} done ${time(r.at)}</p>`;
  return html`<p>Result: <span class="status s-failed">failed (${r.reason ?? "unknown"})</span> ${time(r.at)}</p>
${r.detail ? untrusted(r.detail, { by: { kind: "tool", name: r.tool } }) : ""}`;
}

/** The Pending plans cell: the proven address and its DKIM domain, so two plans alike but for who asked differ. */
function askedByCell(r: RequesterProof | undefined): Html {
  if (!r) return html`<span class="note">not recorded</span>`;
  return html`${r.address}${r.proof ? html`<br><span class="note">DKIM ${r.proof.dkimDomain}</span>` : ""}`;
}

/** Who asked (G14): the proven requester, how, the thread, and their words fenced as theirs. */
function requesterSection(plan: PlanRecord): Html {
  const r = plan.requester;
  if (!r)
    return html`<h2>Asked by</h2><p class="note">Not recorded: a scheduled run's plan, or one sealed before requesters were recorded.</p>`;
  return html`<h2>Asked by</h2>
<table>
<tr><th>Requester</th><td><strong>${r.address}</strong>${r.displayName ? html` ${untrusted(r.displayName, { inline: true, by: { kind: "sender", address: r.address } })}` : ""}</td></tr>
<tr><th>Proven by</th><td>${proofLine(r)}</td></tr>
<tr><th>Thread</th><td><a href="/agents/${seg(plan.agent)}/threads/${seg(r.threadId)}"><code>${r.threadId}</code></a>, message received ${time(r.receivedAt)}</td></tr>
<tr><th>Subject</th><td>${untrusted(r.subject, { inline: true, by: { kind: "sender", address: r.address } })}</td></tr>
</table>
${untrusted(r.asking, { by: { kind: "sender", address: r.address } })}${r.askingCut ? html`<p class="note">Cut here: the whole mail is in the thread.</p>` : ""}`;
}
