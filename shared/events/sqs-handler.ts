import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import type { WebhookItem } from "../admin/index.ts";
import type { KeyedLogger } from "../logger.ts";
import { sqsBatchHandler } from "../messages/index.ts";
import { type DeliverOutcome, deliverEvent } from "./deliver.ts";
import { fanOut } from "./fan-out.ts";
import { parseEventsMessage } from "./message.ts";
import type { DeliverDeps, EventsMessage } from "./ports.ts";

export interface EventsWorkerDeps extends DeliverDeps {
  readonly sqs: Pick<SQSClient, "send">;
  readonly queueUrl: string;
  readonly deadLetterUrl: string;
  /** Every endpoint (the admin snapshot's webhooks), for fan-out. */
  endpoints(): Promise<readonly WebhookItem[]>;
  readonly logger: KeyedLogger;
}

/**
 * The events worker's SQS handler (a Lambda in AWS, polled by the local stack). An `event` is fanned out into one
 * `deliver` message per endpoint; a `deliver` is attempted. A failed attempt's message is hidden for the schedule's
 * wait with ChangeMessageVisibility and failed in the batch response (so it is not deleted): SQS brings it back
 * then, as it would after any failure, with no timer of our own. Spent retries go to the DLQ, sent by the worker
 * (the queue's own redrive counts receives, and a breaker's waits are receives that are not attempts).
 */
export function eventsSqsHandler(deps: EventsWorkerDeps): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const send = (queueUrl: string, m: EventsMessage) =>
    deps.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(m) }));
  return sqsBatchHandler(
    async (record, scope) => {
      const parsed = parseEventsMessage(record.body);
      if (!parsed.ok) {
        deps.logger.error("unusable events message", {
          sqsMessageId: record.messageId,
          error: parsed.detail,
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
        case "retry":
        case "deferred":
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
