import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import type { SQSEvent } from "aws-lambda";
import type { FauxqsServer } from "fauxqs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureQueue } from "../../cli/local/emulator-queues.ts";
import { startLoopbackFauxqs } from "../../cli/local/fauxqs-loopback.ts";
import { recordsToDelete, toSqsEvent } from "../../cli/local/sqs-event.ts";
import type { WebhookItem } from "../../shared/admin/webhook-item.ts";
import { toEvent } from "../../shared/ports/index.ts";
import {
  DEFAULT_POLICY,
  maxReceivesFor,
  type WebhooksPayload,
  webhooksSqsHandler,
} from "../../shared/webhooks/index.ts";
import { maxAttempts } from "../../shared/webhooks/policy.ts";
import type { Post } from "../../shared/webhooks/ports.ts";
import { newSecret } from "../../shared/webhooks/signing.ts";
import { fakeDeliverDeps } from "../fakes/events.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";

/**
 * The deployed retry schedule, run whole on a fake clock against fauxqs's receive counts and redrive (it applies
 * maxReceiveCount on receive, as SQS does, from Date.now()): with one endpoint's breaker open for a day, every
 * queued event still arrives, and no message nears the queue's maxReceiveCount. Only Date is faked: fauxqs's HTTP
 * server and the SDK keep their real timers.
 */
const REGION = "us-east-1";
const T0 = Date.parse("2026-12-01T00:00:00.000Z");
const STEP_MS = 60_000;
const MAX_RECEIVES = maxReceivesFor(DEFAULT_POLICY);
const SCHEDULE_S = DEFAULT_POLICY.retrySeconds.reduce((a, b) => a + b, 0);

const endpoint: WebhookItem = {
  id: "crm",
  url: "https://hooks.example.com/postern",
  events: ["mail.accepted"],
  includeMailText: false,
  enabled: true,
};

let fauxqs: FauxqsServer;
let sqs: SQSClient;
let run = 0;

beforeAll(async () => {
  fauxqs = await startLoopbackFauxqs({ port: 0, logger: false, defaultRegion: REGION });
  sqs = new SQSClient({
    region: REGION,
    endpoint: fauxqs.address,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
});
afterAll(async () => {
  sqs?.destroy();
  await fauxqs?.stop();
});
afterEach(() => vi.useRealTimers());

async function queues() {
  run += 1;
  const dlq = await ensureQueue(fauxqs, sqs, `events-dlq-${run}`, REGION, {
    MessageRetentionPeriod: "1209600",
  });
  const q = await ensureQueue(fauxqs, sqs, `events-${run}`, REGION, {
    VisibilityTimeout: "540",
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: dlq.queueArn,
      maxReceiveCount: String(MAX_RECEIVES),
    }),
  });
  return { queueUrl: q.queueUrl, queueArn: q.queueArn, dlqUrl: dlq.queueUrl };
}

const depth = async (url: string): Promise<number> => {
  const a = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: [
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
      ],
    }),
  );
  const n = (k: keyof NonNullable<typeof a.Attributes>) => Number(a.Attributes?.[k] ?? 0);
  return (
    n("ApproximateNumberOfMessages") +
    n("ApproximateNumberOfMessagesNotVisible") +
    n("ApproximateNumberOfMessagesDelayed")
  );
};

/** Lambda's event source mapping, one fake minute at a time: receive what is visible, handle it, delete what succeeded. */
async function runSchedule(opts: {
  readonly events: number;
  readonly downForMs: number;
  readonly untilMs: number;
}) {
  vi.useFakeTimers({ toFake: ["Date"], now: T0 });
  const { queueUrl, queueArn, dlqUrl } = await queues();
  const attempts = new Map<string, number[]>();
  const delivered = new Set<string>();
  const post: Post = async (_url, headers) => {
    const id = headers["webhook-id"] as string;
    attempts.set(id, [...(attempts.get(id) ?? []), Date.now() - T0]);
    if (Date.now() - T0 < opts.downForMs) return { ok: true, status: 503 };
    delivered.add(id);
    return { ok: true, status: 204 };
  };
  const f = fakeDeliverDeps({ endpoints: [endpoint], post, now: () => new Date() });
  await f.secrets.write("crm", { current: newSecret() });
  const handler = webhooksSqsHandler({
    ...f.deps,
    sqs,
    queueUrl,
    deadLetterUrl: dlqUrl,
    endpoints: async () => [endpoint],
    logger: recordingLogger(),
  });
  for (let i = 0; i < opts.events; i++) {
    const event = toEvent({ type: "mail.accepted", key: `m${i}`, data: { agent: "a@x" } }, new Date(T0));
    const m: WebhooksPayload = { kind: "deliver", endpointId: "crm", event };
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(m) }));
  }
  let maxReceive = 0;
  let receives = 0;
  for (let t = T0; t <= T0 + opts.untilMs; t += STEP_MS) {
    vi.setSystemTime(t);
    for (;;) {
      const res = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          MessageSystemAttributeNames: ["All"],
        }),
      );
      const messages = res.Messages ?? [];
      if (messages.length === 0) break;
      const event: SQSEvent = toSqsEvent(messages, queueArn, REGION);
      for (const r of event.Records)
        maxReceive = Math.max(maxReceive, Number(r.attributes.ApproximateReceiveCount));
      receives += messages.length;
      const done = recordsToDelete(event, { kind: "returned", value: await handler(event) });
      if (done.length > 0)
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
          }),
        );
    }
    if ((await depth(queueUrl)) === 0) break;
  }
  const deferred = [...f.entries.values()].flat().filter((e) => e.outcome === "deferred").length;
  return {
    attempts,
    delivered,
    maxReceive,
    receives,
    deferred,
    left: await depth(queueUrl),
    deadLettered: await depth(dlqUrl),
    reports: f.failures.reports,
  };
}

describe("the retry schedule against the queue's receive budget", () => {
  it("an endpoint down for 24 hours, its breaker open, still gets every event: deferrals spend no receives", async () => {
    const r = await runSchedule({ events: 40, downForMs: 24 * 3600_000, untilMs: 48 * 3600_000 });
    expect(r.delivered.size).toBe(40);
    expect(r.deadLettered).toBe(0);
    // The breaker held deliveries thousands of times over the day (40 events, one probe per cool-down)...
    expect(r.deferred).toBeGreaterThan(40 * MAX_RECEIVES);
    // ...and none of them counted: each message is received once per attempt, at most.
    expect(r.maxReceive).toBeLessThanOrEqual(maxAttempts(DEFAULT_POLICY));
    expect(r.left).toBe(0);
    expect(r.reports.filter((x) => x.reason !== "circuit-opened")).toEqual([]);
    // No event spent its attempts faster than the schedule: a day of outage left each at least its last one.
    for (const times of r.attempts.values())
      expect(times.length).toBeLessThanOrEqual(maxAttempts(DEFAULT_POLICY));
  }, 120_000);

  it("an endpoint that never answers: each event gets its 8 attempts over 27 h 35 min, then the DLQ and a report", async () => {
    const r = await runSchedule({
      events: 3,
      downForMs: Number.POSITIVE_INFINITY,
      untilMs: (SCHEDULE_S + 6 * 3600) * 1000,
    });
    expect(r.delivered.size).toBe(0);
    expect(r.deadLettered).toBe(3);
    expect(r.left).toBe(0);
    expect(r.maxReceive).toBeLessThanOrEqual(maxAttempts(DEFAULT_POLICY));
    for (const times of r.attempts.values()) {
      expect(times).toHaveLength(maxAttempts(DEFAULT_POLICY));
      // The last attempt no sooner than the schedule allows (a minute's step may only add).
      expect((times.at(-1) as number) - (times[0] as number)).toBeGreaterThanOrEqual(SCHEDULE_S * 1000);
    }
    const exhausted = r.reports.filter((x) => x.reason === "retries-exhausted");
    expect(exhausted).toHaveLength(3);
  }, 120_000);
});

describe("the queue's last receive", () => {
  it("is reported as webhook-undelivered and moved to the DLQ by the worker, before anything that could crash again", async () => {
    const sends: { QueueUrl?: string; MessageBody?: string }[] = [];
    const fakeSqs = {
      // SQS answers every send with its message id; the queue adapter reads it.
      send: async (c: { input: object }) => {
        sends.push(c.input as (typeof sends)[number]);
        return { MessageId: `sent-${sends.length}` };
      },
    };
    const f = fakeDeliverDeps({
      endpoints: [endpoint],
      post: async () => {
        throw new Error("the worker would crash here again");
      },
      now: () => new Date(T0),
    });
    await f.secrets.write("crm", { current: newSecret() });
    const handler = webhooksSqsHandler({
      ...f.deps,
      sqs: fakeSqs as unknown as SQSClient,
      queueUrl: "q",
      deadLetterUrl: "dlq",
      endpoints: async () => [endpoint],
      logger: recordingLogger(),
    });
    const event = toEvent({ type: "mail.accepted", key: "m", data: { agent: "a@x" } }, new Date(T0));
    const body = JSON.stringify({ kind: "deliver", endpointId: "crm", event });
    const record = (n: number, b = body) =>
      toSqsEvent(
        [
          {
            MessageId: `id${n}`,
            ReceiptHandle: `rh${n}`,
            Body: b,
            Attributes: { ApproximateReceiveCount: String(n) },
          },
        ],
        "arn:aws:sqs:us-east-1:000000000000:events",
        REGION,
      );
    // Not yet the last: the attempt runs (and crashes: SQS will redeliver).
    expect((await handler(record(MAX_RECEIVES - 1))).batchItemFailures).toHaveLength(1);
    expect(sends).toEqual([]);
    const last = await handler(record(MAX_RECEIVES));
    expect(last.batchItemFailures).toEqual([]);
    expect(sends).toEqual([{ QueueUrl: "dlq", MessageBody: body }]);
    expect(f.failures.reports).toMatchObject([
      { class: "webhook-undelivered", reason: "receives-exhausted", agent: "a@x" },
    ]);
    // An unusable message too: rejected until its last receive, then reported and moved.
    expect((await handler(record(1, "{"))).batchItemFailures).toHaveLength(1);
    await handler(record(MAX_RECEIVES, "{"));
    expect(sends.at(-1)).toEqual({ QueueUrl: "dlq", MessageBody: "{" });
    expect(f.failures.reports).toHaveLength(2);
  });
});
