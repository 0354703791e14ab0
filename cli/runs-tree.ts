import type { StoredRunEvent } from "../shared/store/run-event-repo.ts";
import type { RunRecord } from "../shared/store/run-repo.ts";

/** One line per event: the fields an operator reads first, never a secret (events hold none, G16). */
function describe(e: StoredRunEvent): string {
  const d = e.data as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  switch (e.type) {
    case "budget-check":
      return `budget ${d.ok ? "ok" : `exceeded: ${s(d.reason)}`}`;
    case "model-request":
      return `model ${s(d.model)} offered [${((d.tools as string[]) ?? []).join(", ")}]`;
    case "model-turn": {
      const calls = ((d.toolCalls as { name: string }[]) ?? []).map((c) => c.name);
      const usage = d.usage as { inputTokens?: number; outputTokens?: number } | undefined;
      return `model turn: ${calls.length > 0 ? `calls ${calls.join(", ")}` : "no tool calls"} (stop ${s(d.stopReason)}, tokens ${usage?.inputTokens ?? 0}/${usage?.outputTokens ?? 0})`;
    }
    case "model-failure":
      return `model failure ${s(d.reason)}${d.retryable ? " (will retry)" : ""}`;
    case "tool-call":
      return `tool ${s(d.name)} called [${((d.toolkits as string[]) ?? []).join(", ")}]`;
    case "tool-result":
      return `tool ${s(d.name)} ${d.ok ? "ok" : `failed: ${s(d.reason)}`}`;
    case "tool-refused":
      return `tool ${s(d.name)} REFUSED: ${s(d.reason)}`;
    case "tool-replayed":
      return `tool ${s(d.name)} replayed from its recorded result`;
    case "run-finished":
      return `run finished: ${s(d.state)} (${s(d.reason)})`;
    case "round-done":
      return `round done; next ${s(d.next)}`;
    default:
      return `${e.type} ${JSON.stringify(d).slice(0, 200)}`;
  }
}

/** A run as a readable tree: the run, then each round's events in order. */
export function renderRunTree(run: RunRecord, events: readonly StoredRunEvent[]): string {
  const head = [
    `run ${run.runId}`,
    `  agent ${run.agent}  kind ${run.kind}  state ${run.state}${run.finishReason ? ` (${run.finishReason})` : ""}`,
    `  sender ${run.sender ?? "(scheduled)"}  created ${run.createdAt}  correlation ${run.correlationId}`,
  ];
  const rounds = new Map<number, StoredRunEvent[]>();
  for (const e of events) rounds.set(e.round, [...(rounds.get(e.round) ?? []), e]);
  const lines = [...head];
  const keys = [...rounds.keys()].sort((a, b) => a - b);
  keys.forEach((round, i) => {
    const lastRound = i === keys.length - 1;
    lines.push(`${lastRound ? "└─" : "├─"} round ${round}`);
    const list = rounds.get(round) ?? [];
    list.forEach((e, j) => {
      const bar = lastRound ? "   " : "│  ";
      lines.push(
        `${bar}${j === list.length - 1 ? "└─" : "├─"} ${describe(e).replace(/[\r\n\u2028\u2029]/g, "⏎")}`,
      );
    });
  });
  return `${lines.join("\n")}\n`;
}
