// The confirm card (G14): what an approver reads before a confirm tool runs. Engine-written frame,
// the operations' summaries and exact arguments, and the code.
//
// The approver is told what counts (G14): the first line of the reply, exactly the keyword and the code.
// Two rules make the card safe to paste back. No line of it counts as a confirmation: the code is
// shown grouped after "code:", never after APPROVE or CANCEL, so "No! Do NOT approve this" above
// an unquoted card (Outlook's default reply) confirms nothing. And nothing model-written can start
// a line: summaries and arguments are escaped so no line break or control character survives.

import { formatCode } from "../../mail/index.ts";
import type { PlanOperation, RequesterProof } from "../../ports/index.ts";
import { requesterBlock } from "./card-requester.ts";
import { cardText } from "./card-text.ts";

export { cardText } from "./card-text.ts";

import { canonicalJson } from "./plan.ts";

export function renderCard(input: {
  agent: string;
  code: string;
  ops: readonly PlanOperation[];
  expiresAt: string;
  /** Who asked (card-requester.ts); null for a scheduled run's plan, or when it was not recorded. */
  requester?: RequesterProof | null;
  /** The responsibility that started a scheduled run, else null. */
  scheduled?: string | null;
}): string {
  const many = input.ops.length !== 1;
  const lines = [
    `The agent ${input.agent} proposes the following operation${many ? "s" : ""}. Nothing has run yet.`,
    "",
    ...requesterBlock(input.requester ?? null, { scheduled: input.scheduled ?? null }, input.code),
  ];
  input.ops.forEach((op, i) => {
    lines.push(`${i + 1}. ${cardText(op.summary)}`);
    lines.push(`   tool: ${cardText(op.tool)}`);
    lines.push(`   arguments: ${cardText(canonicalJson(op.input))}`);
    lines.push("");
  });
  lines.push(
    `code: ${formatCode(input.code)}`,
    "",
    `To run exactly ${many ? "these operations" : "this operation"}, reply and make the first line of your reply the word APPROVE followed by the code above, and nothing else: no greeting or other text above it.`,
    "To discard it, make the first line the word CANCEL followed by the code.",
    "A reply whose first line is anything else runs nothing, and a line with CANCEL anywhere in it stops an approval.",
    "Only what you type yourself counts: this card quoted, forwarded or pasted back confirms nothing.",
    `The code expires at ${input.expiresAt}.`,
  );
  return lines.join("\n");
}
