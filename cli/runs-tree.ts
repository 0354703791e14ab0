import { printable } from "../shared/mail/index.ts";
import { type PlanRecord, proofLine, type RunRecord, type StoredRunEvent } from "../shared/ports/index.ts";
import { type TimelineContext, timeline, timelineTree } from "../shared/trace/index.ts";

/**
 * One line of the tree: the time of day, then the event's description (never a secret, G16). Engine-written, but
 * it quotes outside words (a server's tool names, a failure's detail): printed through `printable`, on one line.
 */
const line = (at: string, text: string): string =>
  printable(`${(at ?? "").slice(11, 23)}  ${text}`, { max: 1000 });
const p = (text: string) => printable(text, { max: 300 });

/**
 * A run as a readable tree, in the order things happened: each round's events under the round, and plan events
 * (the confirm card, an approval, the applied operations) where they happened between and after the rounds.
 */
export function renderRunTree(
  run: RunRecord,
  events: readonly StoredRunEvent[],
  ctx: TimelineContext = {},
  plan: PlanRecord | null = null,
): string {
  const lines = [
    `run ${p(run.runId)}`,
    `  agent ${p(run.agent)}  kind ${p(run.kind)}  state ${p(run.state)}${run.finishReason ? ` (${p(run.finishReason)})` : ""}`,
    `  sender ${p(run.sender ?? "(scheduled)")}  created ${p(run.createdAt)}  correlation ${p(run.correlationId)}`,
    // G19: a failure of the run or of mail it caused, in the header, not only somewhere in the tree.
    ...(run.failure
      ? [
          `  FAILURE ${p(run.failure.class)}: ${p(run.failure.reason)}${(run.failureCount ?? 1) > 1 ? ` (${run.failureCount} failures)` : ""}  (docs/reasons.md)`,
        ]
      : []),
    ...(plan ? planLines(plan) : []),
  ];
  const nodes = timelineTree(timeline(events, ctx));
  nodes.forEach((node, i) => {
    const last = i === nodes.length - 1;
    if (node.kind === "item") {
      lines.push(`${last ? "└─" : "├─"} ${line(node.item.at, node.item.text)}`);
      return;
    }
    lines.push(`${last ? "└─" : "├─"} round ${node.round}${node.continued ? " (continued)" : ""}`);
    const bar = last ? "   " : "│  ";
    node.items.forEach((item, j) => {
      lines.push(`${bar}${j === node.items.length - 1 ? "└─" : "├─"} ${line(item.at, item.text)}`);
    });
  });
  return `${lines.join("\n")}\n`;
}

// A tool's detail and a requester's address are outside words: printed through `printable` like the rest.
const inert = (text: string): string => printable(text, { max: 300 });

/**
 * The run's plan, in the header: its state as it happened (`failed (<reason>)`), who decided and when, who asked and
 * how that was proven, and each operation's result numbered as the card numbered them.
 */
export function planLines(plan: PlanRecord): string[] {
  const state = `${plan.state}${plan.state === "failed" && plan.failedReason ? ` (${plan.failedReason})` : ""}`;
  const decided = plan.decidedBy
    ? `  decided by ${plan.decidedBy}${plan.decidedAt ? ` at ${plan.decidedAt}` : ""}`
    : "";
  const lines = [
    `  plan ${state}${decided}${plan.finishedAt ? `  finished ${plan.finishedAt}` : ""}`,
    plan.requester
      ? `    asked by ${inert(plan.requester.address)} (${proofLine(plan.requester)})`
      : "    asked by: not recorded",
  ];
  plan.ops.forEach((op, i) => {
    const r = plan.results?.find((x) => x.number === i + 1);
    const outcome = !r
      ? ""
      : r.status === "ok"
        ? "  done"
        : r.status === "not-run"
          ? "  not run (an earlier operation failed)"
          : `  FAILED (${inert(r.reason ?? "unknown")})${r.detail ? `: ${inert(r.detail)}` : ""}`;
    lines.push(`    ${i + 1}. ${inert(op.tool)}${outcome}`);
  });
  return lines;
}
