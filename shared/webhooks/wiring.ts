import type { SQSClient } from "@aws-sdk/client-sqs";
import type { Resources } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import type { KeyedLogger, Logger } from "../logger.ts";
import { type HostResolver, systemResolver } from "../net/index.ts";
import { perReceive } from "../payloads/index.ts";
import { noWebhooks, type WebhookSink } from "../ports/index.ts";
import { SqsQueue } from "../queue/index.ts";
import { type AdminRepo, type BasePlatform, failureReporter } from "../store/index.ts";
import { dynamoWebhookState } from "./dynamo-state.ts";
import { queueWebhookSink } from "./emitter.ts";
import { pinnedPost } from "./pinned-post.ts";
import { DEFAULT_POLICY, type DeliveryPolicy } from "./policy.ts";
import type { SecretStore } from "./secrets.ts";
import type { WebhooksDeps } from "./sqs-handler.ts";

/**
 * How long a function trusts its last read of the endpoints before it queues an event: an endpoint added (or
 * subscribed to a new type) receives events within this long. Removing one takes effect at once (the worker reads
 * the endpoint fresh for every delivery).
 */
export const SUBSCRIBERS_MAX_AGE_MS = 30_000;

/**
 * The sink a pipeline function's core gets: the events queue when the stack has one, else nothing. Given the
 * webhooks table, an event no enabled endpoint subscribes to is not queued at all: a deployment without webhooks
 * pays no SQS send and no worker invocation per mail (three per answered mail otherwise), and the endpoints are
 * read (one Scan of the webhooks table) at most once per SUBSCRIBERS_MAX_AGE_MS per container. A failed read
 * queues the event anyway: the worker decides.
 */
export function webhookSinkFor(
  /** A function's platform (shared/store makePlatform), or the parts of it the sink uses. */
  platform: {
    readonly resources: Resources;
    readonly clients: { readonly sqs: Pick<SQSClient, "send"> };
    readonly stores: { readonly admin: Pick<AdminRepo, "listWebhooks"> };
    readonly logger: Logger;
  },
  /** Milliseconds now, for the endpoints' cache (tests). */
  clockMs?: () => number,
): WebhookSink {
  const url = platform.resources.queues.events;
  if (!url) return noWebhooks;
  const { sqs } = platform.clients;
  const queue = new SqsQueue({ sqs });
  const sink = queueWebhookSink({
    send: async (m) => void (await queue.send(url, m)),
    logger: platform.logger,
  });
  const { admin } = platform.stores;
  const endpoints = perReceive(() => admin.listWebhooks(), {
    maxAgeMs: SUBSCRIBERS_MAX_AGE_MS,
    ...(clockMs ? { now: clockMs } : {}),
  });
  const wanted = async (type: string): Promise<boolean> => {
    try {
      return (await endpoints.get()).some((w) => w.enabled && (w.events as readonly string[]).includes(type));
    } catch (err) {
      // Queue it anyway (the worker reads the endpoints again and drops what nobody takes): nothing is lost, but an
      // unreadable webhooks table (a missing grant, throttling) would otherwise queue every event unseen.
      platform.logger.warn("events-subscribers-unread", {
        eventType: type,
        error: err instanceof Error ? err.name : String(err),
      });
      return true;
    }
  };
  return {
    async emit(input) {
      if (await wanted(input.type)) await sink.emit(input);
    },
  };
}

/**
 * The webhooks function's composition root, the same `(platform, parts) => deps` as the others over the
 * BasePlatform (it reads no deployment config): the Lambda handler and the local stack's poller build the worker
 * alike. The platform's logger is keyed: the worker adds each event's ids to its lines.
 */
export function webhooksDeps(
  platform: Pick<BasePlatform, "resources" | "clients" | "stores" | "now"> & { readonly logger: KeyedLogger },
  parts: {
    /** Secrets Manager in AWS; the local stack's secrets file. */
    readonly secrets: SecretStore;
    readonly policy?: DeliveryPolicy;
    readonly resolve?: HostResolver;
    /** The local stack's explicit local-only setting (loopback endpoints over http). Never set in AWS. */
    readonly allowLoopback?: boolean;
  },
): WebhooksDeps {
  const { resources, clients, stores, logger, now: clock } = platform;
  const queueUrl = resources.queues.events;
  const deadLetterUrl = resources.queues.eventsDeadLetter;
  if (!queueUrl || !deadLetterUrl)
    throw new PosternError("misconfigured", "the events worker needs the events queue and its DLQ");
  const admin = perReceive(() => stores.admin.snapshot(), { maxAgeMs: 1000 });
  const state = dynamoWebhookState({ dynamo: clients.dynamo, tables: resources.tables, clock });
  return {
    sqs: clients.sqs,
    queueUrl,
    deadLetterUrl,
    endpoints: async () => (await admin.get()).webhooks,
    // Fresh per delivery: removing or disabling an endpoint stops its retries at the next attempt.
    endpoint: (id) => stores.admin.getWebhook(id),
    secrets: parts.secrets,
    post: pinnedPost({
      resolve: parts.resolve ?? systemResolver,
      ...(parts.allowLoopback ? { allowLoopback: true } : {}),
    }),
    ...state,
    failures: failureReporter(stores, logger, clock),
    policy: parts.policy ?? DEFAULT_POLICY,
    clock,
    logger,
  };
}
