import type { PlanRecord } from "../../shared/ports/index.ts";
import { type Html, html, seg, time } from "./html.ts";
import { csrfField } from "./layout.ts";

/**
 * Apply asks first, as a removal does: a plan's operations run once approved and cannot be taken back (a refund is
 * money out), so one stray click on the plan page only leads here. Only this page's form carries `confirm=yes`.
 */
export function applyConfirmView(plan: PlanRecord, csrf: string): Html {
  const n = plan.ops.length;
  return html`<p>Apply the plan of <strong>${plan.agent}</strong> (run <code>${plan.runId}</code>)?</p>
<p>This runs ${n === 1 ? "this operation" : `these ${n} operations`} once, after every gate is checked again; it
cannot be undone. The agent then tells the sender.</p>
<ol>${plan.ops.map((o) => html`<li><code>${o.tool}</code></li>`)}</ol>
<p class="note">Expires ${time(plan.expiresAtIso)}. The arguments are on the <a href="/plans/${seg(plan.runId)}">plan page</a>, exactly as stored.</p>
<form class="inline" method="post" action="/plans/${seg(plan.runId)}/apply">${csrfField(csrf)}<input type="hidden" name="confirm" value="yes"><button type="submit" name="decision" value="approve">Yes, apply</button></form>
<a href="/plans/${seg(plan.runId)}">Not now</a>`;
}
