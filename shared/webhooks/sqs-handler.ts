import { ChangeMessageVisibilityCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import type { WebhookItem } from "../admin/index.ts";
import type { KeyedLogger } from "../logger.ts";
import { parseWebhooksPayload, sqsBatchHandler, type WebhooksPayload } from "../payloads/index.ts";
import { SqsQueue } from "../queue/index.ts";
import { type DeliverOutcome, deliverEvent, UNDELIVERED } from "./deliver.ts";
import { fanOut } from "./fan-out.ts";
import { maxReceivesFor, SQS_MAX_DELAY_SECONDS } from "./policy.ts";
import type { DeliverDeps } from "./ports.ts";

export interface WebhooksDeps extends DeliverDeps {
  readonly sqs: Pick<SQSClient, "send">;
  readonly queueUrl: string;
  readonly deadLetterUrl: string;
  /** Every endpoint (the admin snapshot's webhooks), for fan-out. */
  endpoints(): Promise<readonly WebhookItem[]>;
  readonly logger: KeyedLogger;
}

export interface WebhooksSqsOptions {
  /** The events queue's maxReceiveCount; maxReceivesFor(policy), as the stack sets it, unless given. */
  readonly maxReceives?: number;
}

/**
 * The events worker's SQS handler (a Lambda in AWS, polled by the local stack). An `event` is fanned out into one
 * `deliver` message per endpoint; a `deliver` is attempted. A failed attempt's message is hidden for the schedule's
 * wait with ChangeMessageVisibility and failed in the batch response (so it is not deleted): SQS brings it back
 * then, as it would after any failure, with no timer of our own. A breaker's wait is no attempt, and must not spend
 * the queue's receive budget either (SQS counts every receive): the delivery is sent again as a new message, delayed
 * by the wait, and the received one deleted. Spent retries go to the DLQ, sent by the worker; so does a message on
 * the queue's last receive (crashed on every receive before), reported first, so nothing reaches the DLQ unreported
 * short of a crash in the report itself (the DLQ's depth alarm is the backstop).
 */
export function webhooksSqsHandler(
  deps: WebhooksDeps,
  options: WebhooksSqsOptions = {},
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const maxReceives = options.maxReceives ?? maxReceivesFor(deps.policy);
  const queue = new SqsQueue({ sqs: deps.sqs });
  const send = (queueUrl: string, m: WebhooksPayload, delaySeconds?: number) =>
    queue.send(queueUrl, m, delaySeconds !== undefined ? { delaySeconds } : {});
  return sqsBatchHandler(
    async (record, scope) => {
      const parsed = parseWebhooksPayload(record.body);
      const receives = Number(record.attributes.ApproximateReceiveCount);
      if (receives >= maxReceives) {
        const event = parsed.ok ? parsed.message.event : undefined;
        const endpointId =
          parsed.ok && parsed.message.kind === "deliver" ? parsed.message.endpointId : undefined;
        deps.logger.error("events message on its last receive; moved to the DLQ", {
          sqsMessageId: record.messageId,
          receives,
        });
        await deps.failures.report({
          class: UNDELIVERED,
          reason: "receives-exhausted",
          detail: `${endpointId ? `endpoint ${endpointId}, ` : ""}${event ? `event ${event.id} (${event.type})` : `unusable message ${record.messageId}`}: ${receives} receives without an outcome (the worker failed on each)`,
          agent: typeof event?.data.agent === "string" ? event.data.agent : "",
        });
        await queue.forward(deps.deadLetterUrl, record.body);
        return "done";
      }
      if (!parsed.ok) {
        deps.logger.error("unusable events payload", {
          sqsMessageId: record.messageId,
          reason: parsed.reason,
          detail: parsed.detail,
        });
        return "reject";
      }
      const m = parsed.message;
      scope.appendKeys({ eventId: m.event.id, eventType: m.event.type });
      if (m.kind === "event") {
        for (const d of fanOut(m.event, await deps.endpoints())) await send(deps.queueUrl, d);
        return "done";
      }
      scope.appendKeys({ endpointId: m.endpointId });
      const outcome: DeliverOutcome = await deliverEvent(m.endpointId, m.event, deps);
      deps.logger.info("webhook delivery", { ...outcome });
      switch (outcome.kind) {
        case "delivered":
        case "dropped":
          return "done";
        case "dead-letter":
          await send(deps.deadLetterUrl, m);
          return "done";
        case "deferred":
          // Sent before the received copy is deleted (at least once): were the delete to fail, the two copies share
          // one attempt counter, so the schedule's attempts are not exceeded and the receiver dedupes on webhook-id.
          await send(deps.queueUrl, m, Math.min(outcome.delaySeconds, SQS_MAX_DELAY_SECONDS));
          return "done";
        case "retry":
          await deps.sqs.send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: deps.queueUrl,
              ReceiptHandle: record.receiptHandle,
              VisibilityTimeout: outcome.delaySeconds,
            }),
          );
          return "retry";
      }
    },
    { logger: deps.logger, name: "events" },
  );
}
