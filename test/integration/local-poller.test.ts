import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import type { SQSEvent, SQSRecord } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, QUEUE_NAMES, startEmulators } from "../../cli/local/emulators.ts";
import { startPoller } from "../../cli/local/poller.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";

/** Lambda's SQS event source mapping, locally: batches, batchItemFailures, visibility timeout, redrive. */
let em: Emulators;
let clients: AwsClients;

beforeAll(async () => {
  // 1 s visibility and 2 receives keep redelivery and redrive within a few seconds.
  em = await startEmulators({ visibilityTimeout: 1, maxReceiveCount: 2 });
  clients = makeClients(em.resources);
});
afterAll(async () => {
  clients?.sqs.destroy();
  await em?.stop();
});

// Returns as soon as the condition holds; the bound only decides how long a loaded machine may take to say no.
const until = async (cond: () => boolean, ms = 20_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
};

async function drainDlq(queue: string): Promise<string[]> {
  const r = await clients.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: dlqUrl(queue), MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return (r.Messages ?? []).map((m) => m.Body ?? "");
}
const dlqUrl = (queue: string): string =>
  em.resources.queues.verify.replace(QUEUE_NAMES.verify, `${queue}-dlq`);

describe("SQS poller", () => {
  // Each test owns its queue, so they run side by side.
  it.concurrent("builds a real SQSEvent and deletes a batch the handler accepted", async () => {
    const events: SQSEvent[] = [];
    const poller = await startPoller({
      sqs: clients.sqs,
      queueUrl: em.resources.queues.outbound,
      region: em.resources.region,
      waitTimeSeconds: 1,
      handler: async (e) => void events.push(e),
    });
    try {
      em.fauxqs.sendMessage(QUEUE_NAMES.outbound, "one");
      em.fauxqs.sendMessage(QUEUE_NAMES.outbound, "two");
      await until(() => events.flatMap((e) => e.Records).length === 2);
      const r = events[0]?.Records[0] as SQSRecord;
      expect(r.eventSource).toBe("aws:sqs");
      expect(r.eventSourceARN).toBe(poller.queueArn);
      expect(r.eventSourceARN).toMatch(/^arn:aws:sqs:us-east-1:\d{12}:postern-outbound$/);
      expect(r.awsRegion).toBe("us-east-1");
      expect(r.attributes.ApproximateReceiveCount).toBe("1");
      expect(Number(r.attributes.SentTimestamp)).toBeGreaterThan(0);
      expect(r.receiptHandle).not.toBe("");
      // Deleted: nothing comes back after the visibility timeout.
      await new Promise((res) => setTimeout(res, 1300));
      expect(events.flatMap((e) => e.Records)).toHaveLength(2);
    } finally {
      await poller.stop();
    }
  });

  it.concurrent("redelivers a failing message with a growing receive count, then the redrive policy moves it to the DLQ", async () => {
    const counts: string[] = [];
    const poller = await startPoller({
      sqs: clients.sqs,
      queueUrl: em.resources.queues.verify,
      region: em.resources.region,
      waitTimeSeconds: 1,
      onError: () => {},
      handler: async (e) => {
        counts.push(...e.Records.map((r) => r.attributes.ApproximateReceiveCount));
        throw new Error("handler failure");
      },
    });
    try {
      em.fauxqs.sendMessage(QUEUE_NAMES.verify, "poison");
      await until(() => counts.length === 2);
      let dead: string[] = [];
      await until(() => {
        if (dead.length === 0) void drainDlq(QUEUE_NAMES.verify).then((d) => (dead = d));
        return dead.length > 0;
      });
      expect(dead).toEqual(["poison"]);
      expect(counts).toEqual(["1", "2"]);
    } finally {
      await poller.stop();
    }
  });

  it.concurrent("redelivers only the records listed in batchItemFailures", async () => {
    const seen: string[] = [];
    const poller = await startPoller({
      sqs: clients.sqs,
      queueUrl: em.resources.queues.agentStep,
      region: em.resources.region,
      waitTimeSeconds: 1,
      handler: async (e) => {
        seen.push(...e.Records.map((r) => `${r.body}#${r.attributes.ApproximateReceiveCount}`));
        return {
          batchItemFailures: e.Records.filter((r) => r.body === "bad").map((r) => ({
            itemIdentifier: r.messageId,
          })),
        };
      },
    });
    try {
      em.fauxqs.sendMessage(QUEUE_NAMES.agentStep, "good");
      em.fauxqs.sendMessage(QUEUE_NAMES.agentStep, "bad");
      await until(() => seen.includes("bad#2"));
      // Let a third visibility window pass: "good" must not return.
      await new Promise((res) => setTimeout(res, 1200));
      expect(seen.filter((s) => s.startsWith("good"))).toEqual(["good#1"]);
      expect(seen.filter((s) => s.startsWith("bad"))).toEqual(["bad#1", "bad#2"]);
    } finally {
      await poller.stop();
    }
  });

  it.concurrent("stops promptly while a 20 s long poll is in flight: the poll is aborted, not waited out", async () => {
    const { queueUrl } = em.fauxqs.createQueue("postern-idle");
    // What became of each long poll, read off the client rather than the clock: a stop that waited the poll out
    // would see it answered (empty) after 20 s, not aborted.
    const polls: ("in flight" | "answered" | "aborted" | "failed")[] = [];
    const send = (command: object, options?: { abortSignal?: AbortSignal }): Promise<unknown> => {
      const sent = clients.sqs.send(command as never, options);
      if (!(command instanceof ReceiveMessageCommand)) return sent;
      const i = polls.push("in flight") - 1;
      const signal = options?.abortSignal;
      sent.then(
        () => {
          polls[i] = "answered";
        },
        () => {
          polls[i] = signal?.aborted ? "aborted" : "failed";
        },
      );
      return sent;
    };
    const sqs = new Proxy(clients.sqs, { get: (t, k) => (k === "send" ? send : Reflect.get(t, k)) });
    const poller = await startPoller({ sqs, queueUrl, region: em.resources.region, handler: async () => {} });
    await until(() => polls.length === 1);
    await poller.stop();
    expect(polls).toEqual(["aborted"]);
  });
});
