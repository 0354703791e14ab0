import type { Logger } from "../logger.ts";
import type { WebhooksPayload } from "../payloads/index.ts";
import { logFailure, toEvent, type WebhookSink } from "../ports/index.ts";

/**
 * The sink every emission point gets: one `event` message on the events queue, which the worker fans out. An event
 * that cannot be queued must not fail the mail, the run or the send that emitted it (they are done, and a retry
 * would redo them for a notification's sake): it is logged as a failure of its own class, which the metric counts
 * and the alarm raises (G19).
 */
export function queueWebhookSink(deps: {
  readonly send: (message: WebhooksPayload) => Promise<void>;
  readonly logger: Logger;
  readonly clock?: () => Date;
}): WebhookSink {
  const clock = deps.clock ?? (() => new Date());
  return {
    async emit(input) {
      const event = toEvent(input, clock());
      try {
        await deps.send({ kind: "event", event });
      } catch (err) {
        logFailure(deps.logger, {
          class: "webhook-undelivered",
          reason: "event-not-queued",
          detail: `${event.type} ${event.id}: ${err instanceof Error ? err.name : "error"}`,
          agent: typeof input.data.agent === "string" ? input.data.agent : "",
        });
      }
    },
  };
}
