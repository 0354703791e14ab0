import { canonicalJson } from "../../shared/agent/index.ts";
import type { Page, PlanRecord } from "../../shared/ports/index.ts";
import type { ToolRegistry } from "../../shared/tool-framework/index.ts";
import { type Html, html, pager, seg, time, untrusted } from "./html.ts";
import { csrfField } from "./layout.ts";

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
  return html`<div class="scroll"><table><thead><tr><th>Proposed</th><th>Agent</th><th>Run</th><th>Operations</th><th>Expires</th><th>State</th></tr></thead><tbody>
${page.items.map((p) => {
  const d = decided.get(p.runId);
  return html`<tr><td>${time(p.planAt)}</td><td>${p.agent}</td><td><a href="/plans/${seg(p.runId)}"><code>${p.runId}</code></a></td>
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
<tr><th>State</th><td>${pendingDecision ? html`${decisionLine(pendingDecision)}; <a href="/plans/${seg(plan.runId)}">reload</a> to see it done` : html`<strong>${plan.state}</strong>${expired && plan.state === "pending" ? " (expired)" : ""}${plan.decidedBy ? ` by ${plan.decidedBy}` : ""}`}</td></tr>
<tr><th>Agent</th><td><a href="/agents/${seg(plan.agent)}">${plan.agent}</a></td></tr>
<tr><th>Run</th><td><a href="/runs/${seg(plan.runId)}"><code>${plan.runId}</code></a></td></tr>
<tr><th>Expires</th><td>${time(plan.expiresAtIso)}</td></tr>
<tr><th>Approvers</th><td>${opts.approvers.length === 0 ? "none" : opts.approvers.join(", ")}</td></tr>
</table>
<h2>Operations</h2>
<p class="note">Exactly what will run if approved, as stored; the arguments were written by the model from mail it read.</p>
<ol>${plan.ops.map((o) => {
    const tool = opts.registry.get(o.tool);
    return html`<li><p><strong>${tool?.displayName ?? o.tool}</strong> (<code>${o.tool}</code>)${tool ? html` <span class="note">${tool.summary}</span>` : ""}</p>
${untrusted(JSON.stringify(JSON.parse(canonicalJson(o.input)), null, 2), { max: 20_000, by: { kind: "model" } })}</li>`;
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
