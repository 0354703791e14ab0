import type { FinalRunState, WebhookSink } from "../../ports/index.ts";

/**
 * A run's end as a signed event (docs/events.md): `run.failed` for a failed run, `run.completed` for every other
 * end. Ids and reason codes only. The run id is the key, so every path that ends a run (the step loop, a vanished
 * agent or trigger, a step whose retries ran out) and every redelivery of one emits under the same `webhook-id`.
 */
export async function emitRunEnd(
  webhooks: WebhookSink,
  run: { readonly runId: string; readonly agent: string; readonly kind: "reply" | "scheduled" },
  end: { readonly state: FinalRunState; readonly reason: string; readonly rounds: number },
): Promise<void> {
  await webhooks.emit({
    type: end.state === "failed" ? "run.failed" : "run.completed",
    key: run.runId,
    data: {
      agent: run.agent,
      runId: run.runId,
      state: end.state,
      reason: end.reason,
      rounds: end.rounds,
      kind: run.kind,
    },
  });
}
