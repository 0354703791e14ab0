import type { ActivityItem } from "../activity.ts";
import { addressChars, type Html, html, time } from "./html.ts";

const KIND_LABEL: Record<ActivityItem["kind"], string> = {
  accepted: "accepted",
  refused: "refused",
  dropped: "dropped",
  run: "run",
  sent: "sent",
  plan: "pending plan",
};

/** The home page's feed: newest first, each line engine-written and linked to where it is shown in full. */
export function activityView(items: readonly ActivityItem[]): Html {
  if (items.length === 0)
    return html`<p>Nothing yet. Send a mail (<code>npx postern dev send ...</code>) and it shows here.</p>`;
  return html`<div class="scroll"><table class="activity"><thead><tr><th>When</th><th>What</th><th>Agent</th></tr></thead><tbody>
${items.map(
  (i) => html`<tr data-kind="${i.kind}"><td>${time(i.at)}</td>
<td><span class="kind k-${i.kind}">${KIND_LABEL[i.kind]}</span> ${i.href ? html`<a href="${i.href}">${i.text}</a>` : i.text}</td>
<td>${i.agent ? addressChars(i.agent) : "-"}</td></tr>`,
)}</tbody></table></div>`;
}
