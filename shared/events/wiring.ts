import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import type { KeyedLogger, Logger } from "../logger.ts";
import { perDelivery } from "../messages/index.ts";
import { type HostResolver, systemResolver } from "../net/index.ts";
import type { FailureSink } from "../ports/index.ts";
import { type EventSink, noEvents } from "../ports/index.ts";
import type { AdminRepo } from "../store/index.ts";
import { dynamoEventState } from "./dynamo-state.ts";
import { queueEventSink } from "./emitter.ts";
import { pinnedPost } from "./pinned-post.ts";
import { DEFAULT_POLICY, type DeliveryPolicy } from "./policy.ts";
import type { SecretStore } from "./secrets.ts";
import type { EventsWorkerDeps } from "./sqs-handler.ts";

/** The sink a pipeline function's core gets: the events queue when the stack has one, else nothing. */
export function eventSinkFor(deps: {
  readonly resources: Resources;
  readonly sqs: Pick<SQSClient, "send">;
  readonly logger: Logger;
}): EventSink {
  const url = deps.resources.queues.events;
  if (!url) return noEvents;
  return queueEventSink({
    send: async (m) =>
      void (await deps.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(m) }))),
    logger: deps.logger,
  });
}

/** The worker's dependencies: the same builder for the Lambda handler and the local stack's poller. */
export function buildEventsWorker(input: {
  readonly resources: Resources;
  readonly sqs: Pick<SQSClient, "send">;
  readonly dynamo: DynamoDBDocumentClient;
  readonly admin: Pick<AdminRepo, "snapshot" | "getWebhook">;
  readonly secrets: SecretStore;
  readonly failures: FailureSink;
  readonly logger: KeyedLogger;
  readonly policy?: DeliveryPolicy;
  readonly resolve?: HostResolver;
  /** The local stack's explicit local-only setting (loopback endpoints over http). Never set in AWS. */
  readonly allowLoopback?: boolean;
  readonly clock?: () => Date;
}): EventsWorkerDeps {
  const { resources } = input;
  const queueUrl = resources.queues.events;
  const deadLetterUrl = resources.queues.eventsDeadLetter;
  if (!queueUrl || !deadLetterUrl) throw new Error("the events worker needs the events queue and its DLQ");
  const clock = input.clock ?? (() => new Date());
  const admin = perDelivery(() => input.admin.snapshot(), { maxAgeMs: 1000 });
  const state = dynamoEventState({ dynamo: input.dynamo, tables: resources.tables, clock });
  return {
    sqs: input.sqs,
    queueUrl,
    deadLetterUrl,
    endpoints: async () => (await admin.get()).webhooks ?? [],
    // Fresh per delivery: removing or disabling an endpoint stops its retries at the next attempt.
    endpoint: (id) => input.admin.getWebhook(id),
    secrets: input.secrets,
    post: pinnedPost({
      resolve: input.resolve ?? systemResolver,
      ...(input.allowLoopback ? { allowLoopback: true } : {}),
    }),
    ...state,
    failures: input.failures,
    policy: input.policy ?? DEFAULT_POLICY,
    clock,
    logger: input.logger,
  };
}
