import type { Hono } from "hono";
import type { SendSummary } from "../../shared/store/trace-lookups.ts";
import { confirmToolPredicate } from "../../shared/trace/confirm-tools.ts";
import { type TimelineItem, timeline } from "../../shared/trace/timeline.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { page } from "../views/layout.ts";
import { runView } from "../views/run.ts";
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
    const sends = await outboundOf(runId, items, deps);
    return c.html(page(`Run ${runId}`, ctxOf(c), runView({ run, items, plan, sends, card, continuation })));
  });
}

/** The mail a run caused: each successful tool result whose recorded result names an outbound request. */
async function outboundOf(
  runId: string,
  items: readonly TimelineItem[],
  deps: ConsoleDeps,
): Promise<Map<number, SendSummary>> {
  const out = new Map<number, SendSummary>();
  const results = items.filter((i) => i.type === "tool-result" && i.data.ok === true && i.status === "ok");
  await Promise.all(
    results.map(async (i) => {
      const cached = await deps.lookups.toolResult(`${runId}:${i.round}:${String(i.data.callId)}`);
      const requestId = (cached?.data as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId !== "string") return;
      const send = await deps.lookups.send(requestId);
      if (send) out.set(i.seq, send);
    }),
  );
  return out;
}
