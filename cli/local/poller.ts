import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import type { Resources } from "../../shared/config/index.ts";
import { PosternError } from "../../shared/errors.ts";
import { type HandlerOutcome, recordsToDelete, toSqsEvent } from "./sqs-event.ts";

/**
 * Lambda's SQS event source mapping, locally: long-poll a queue, hand each batch to the handler as a real
 * `SQSEvent`, delete what succeeded, and leave failures to reappear after the visibility timeout. Moving a
 * message to its DLQ after `maxReceiveCount` receives is the queue's own RedrivePolicy (fauxqs applies it on
 * receive, as SQS does), so the poller never deletes a failed message itself.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: Lambda's own SQSHandler type is `SQSBatchResponse | void`; an async handler returning nothing must fit.
export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

/** Handlers by queue; a missing one means its queue is not polled (no placeholder may pretend to process mail). */
export interface HandlerSet {
  readonly verify?: SqsHandler;
  readonly agentStep?: SqsHandler;
  readonly outbound?: SqsHandler;
  /** The webhook events worker (docs/events.md). */
  readonly events?: SqsHandler;
}
export type QueueKey = Exclude<keyof Resources["queues"], "eventsDeadLetter">;
export const QUEUE_KEYS: readonly QueueKey[] = ["verify", "agentStep", "outbound", "events"];

export interface PollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly region: string;
  readonly handler: SqsHandler;
  /** Lambda's BatchSize, 1-10 (one ReceiveMessage call). Default 10. */
  readonly batchSize?: number;
  /** Long-poll wait, 0-20 s. Default 20, as Lambda. */
  readonly waitTimeSeconds?: number;
  /** A handler throw or a queue error; the default prints one line to stderr. */
  readonly onError?: (error: unknown, where: "handler" | "queue") => void;
}

export interface Poller {
  readonly queueUrl: string;
  readonly queueArn: string;
  /** Abort the in-flight long poll, let a running handler finish, then resolve. */
  stop(): Promise<void>;
}

export async function startPoller(opts: PollerOptions): Promise<Poller> {
  const { sqs, queueUrl, handler } = opts;
  const attrs = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["QueueArn"] }),
  );
  const queueArn = attrs.Attributes?.QueueArn;
  if (!queueArn) throw new PosternError("dependency-failed", `queue ${queueUrl} has no QueueArn`);
  const onError =
    opts.onError ?? ((err, where) => console.error(`[poller ${queueArn}] ${where} error: ${describe(err)}`));
  const abort = new AbortController();

  async function pollOnce(): Promise<void> {
    const res = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: opts.batchSize ?? 10,
        WaitTimeSeconds: opts.waitTimeSeconds ?? 20,
        MessageSystemAttributeNames: ["All"],
        MessageAttributeNames: ["All"],
      }),
      { abortSignal: abort.signal },
    );
    const messages = res.Messages ?? [];
    if (messages.length === 0) return;
    const event = toSqsEvent(messages, queueArn as string, opts.region);
    let outcome: HandlerOutcome;
    try {
      outcome = { kind: "returned", value: (await handler(event)) ?? undefined };
    } catch (error) {
      onError(error, "handler");
      outcome = { kind: "threw", error };
    }
    const done = recordsToDelete(event, outcome);
    if (done.length === 0) return;
    // Not tied to the abort signal: a handled message must be deleted even while stopping, or it runs twice.
    const del = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
      }),
    );
    // A failed delete means the message comes back: handlers are idempotent, but say so rather than hide it.
    if (del.Failed?.length) onError(new Error(`delete failed: ${JSON.stringify(del.Failed)}`), "queue");
  }

  const loop = (async () => {
    while (!abort.signal.aborted) {
      try {
        await pollOnce();
      } catch (err) {
        if (abort.signal.aborted) break;
        onError(err, "queue");
        await sleep(1000, abort.signal);
      }
    }
  })();

  return {
    queueUrl,
    queueArn,
    async stop() {
      abort.abort();
      await loop;
    },
  };
}

export interface PollerSet {
  readonly polled: readonly QueueKey[];
  /** Queues with no registered handler: not polled, their messages wait. */
  readonly skipped: readonly QueueKey[];
  stop(): Promise<void>;
}

export async function startPollers(
  resources: Resources,
  sqs: SQSClient,
  handlers: HandlerSet,
  opts: Omit<PollerOptions, "sqs" | "queueUrl" | "region" | "handler"> = {},
): Promise<PollerSet> {
  const pollers: Poller[] = [];
  const polled: QueueKey[] = [];
  const skipped: QueueKey[] = [];
  try {
    for (const key of QUEUE_KEYS) {
      const handler = handlers[key];
      const queueUrl = resources.queues[key];
      if (!handler || !queueUrl) {
        skipped.push(key);
        continue;
      }
      pollers.push(
        await startPoller({
          ...opts,
          sqs,
          queueUrl,
          region: resources.region,
          handler,
        }),
      );
      polled.push(key);
    }
  } catch (err) {
    await Promise.all(pollers.map((p) => p.stop()));
    throw err;
  }
  return { polled, skipped, stop: async () => void (await Promise.all(pollers.map((p) => p.stop()))) };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((res) => {
    const t = setTimeout(res, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        res();
      },
      { once: true },
    );
  });
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
