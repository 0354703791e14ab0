import type { Hono } from "hono";
import { toModelToolResult } from "../../shared/agent/index.ts";
import type { SendSummary } from "../../shared/ports/index.ts";
import type { ToolResult } from "../../shared/tool-framework/index.ts";
import { confirmToolPredicate, type TimelineItem, timeline } from "../../shared/trace/index.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { page } from "../views/layout.ts";
import { runView, type ShownResult } from "../views/run.ts";
import { ctxOf } from "./context.ts";

/** A run as a timeline, with its plan, its continuation and the mail it caused. */
export function runPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/runs/:runId", async (c) => {
    const runId = c.req.param("runId");
    const run = await deps.runs.get(runId);
    if (!run) return c.notFound();
    const [events, plan, continuation, card] = await Promise.all([
      deps.runEvents.list(runId),
      deps.plans.get(runId),
      deps.runs.get(`${runId}-applied`),
      deps.lookups.send(`card-${runId}`),
    ]);
    const items = timeline(events, {
      proposedCallIds: new Set(plan?.ops.map((o) => o.callId) ?? []),
      isConfirmTool: confirmToolPredicate(deps.registry),
    });
    const { results, sends } = await resultsOf(runId, items, deps);
    return c.html(
      page(`Run ${runId}`, ctxOf(c), runView({ run, items, plan, sends, results, card, continuation })),
    );
  });
}

/**
 * Each tool result as the model read it (the recorded result, mapped the way the agent maps it for the model:
 * fences, cuts and error shape included), and the mail a run caused: each successful result that names an
 * outbound request. One GetItem per result (the tool-result cache, kept 30 days; older runs show none).
 */
async function resultsOf(
  runId: string,
  items: readonly TimelineItem[],
  deps: ConsoleDeps,
): Promise<{ results: Map<number, ShownResult>; sends: Map<number, SendSummary> }> {
  const results = new Map<number, ShownResult>();
  const sends = new Map<number, SendSummary>();
  await Promise.all(
    items
      .filter((i) => i.type === "tool-result")
      .map(async (i) => {
        const callId = String(i.data.callId);
        const cached = await deps.lookups.toolResult(`${runId}:${i.round}:${callId}`);
        if (!cached) return;
        const seen = toModelToolResult(callId, cached as unknown as ToolResult);
        results.set(i.seq, {
          tool: String(i.data.name),
          text: JSON.stringify(seen.content.type === "json" ? seen.content.value : seen.content, null, 2),
          attachments: (seen.attachments ?? []).map((a) => a.mediaType),
        });
        const requestId = (cached.data as { requestId?: unknown } | undefined)?.requestId;
        if (i.status !== "ok" || typeof requestId !== "string") return;
        const send = await deps.lookups.send(requestId);
        if (send) sends.set(i.seq, send);
      }),
  );
  return { results, sends };
}
