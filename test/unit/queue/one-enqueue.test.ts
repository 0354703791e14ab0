import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SqsQueue } from "../../../shared/queue/index.ts";
import { sourceFiles } from "../../layers/source-files.ts";

// SqsQueue is the one way work reaches a queue: the delay bound, the JSON encoding and the byte-for-byte DLQ
// forward live there once. Four files had built their own SendMessageCommand (two in the events worker, the CLI's
// `webhooks test` and the local schedule timer), each with its own encoding; this check keeps a fifth from coming.

const ROOT = resolve(import.meta.dirname, "../../..");
const SHIPPED = ["shared", "console", "cli", "functions", "infra", "tools", "bin"];
const ADAPTER = "shared/queue/sqs-queue.ts";
const RAW_SEND = /\b(SendMessageCommand|SendMessageBatchCommand)\b/g;

/** `file:line` of every raw SQS send command named in `text`, unless the file is the queue adapter. */
function rawSends(path: string, text: string): string[] {
  if (path === ADAPTER) return [];
  return [...text.matchAll(RAW_SEND)].map(
    (m) => `${path}:${text.slice(0, m.index).split("\n").length} (${m[1]})`,
  );
}

describe("every enqueue goes through SqsQueue", () => {
  it("finds a raw send in a probe, and lets the adapter have one", () => {
    const probe =
      'import { SendMessageCommand } from "@aws-sdk/client-sqs";\nawait sqs.send(new SendMessageCommand(x));\n';
    expect(rawSends("cli/probe.ts", probe)).toEqual([
      "cli/probe.ts:1 (SendMessageCommand)",
      "cli/probe.ts:2 (SendMessageCommand)",
    ]);
    expect(rawSends("shared/probe.ts", "new SendMessageBatchCommand({})")).toEqual([
      "shared/probe.ts:1 (SendMessageBatchCommand)",
    ]);
    expect(rawSends(ADAPTER, probe)).toEqual([]);
  });

  it("no shipped file outside the queue adapter sends with a raw SQS command", () => {
    const found = sourceFiles(ROOT, SHIPPED).flatMap((p) => rawSends(p, readFileSync(join(ROOT, p), "utf8")));
    expect(found).toEqual([]);
  });
});

describe("SqsQueue", () => {
  const recording = () => {
    const sent: Array<Record<string, unknown>> = [];
    const sqs = {
      send: async (c: { input: Record<string, unknown> }) => {
        sent.push(c.input);
        return { MessageId: "m-1" };
      },
    };
    return { sent, queue: new SqsQueue({ sqs: sqs as never }) };
  };

  it("sends a JSON body with an optional delay, and refuses a delay SQS would refuse", async () => {
    const { sent, queue } = recording();
    expect(await queue.send("q", { a: 1 }, { delaySeconds: 900 })).toBe("m-1");
    expect(sent).toEqual([{ QueueUrl: "q", MessageBody: '{"a":1}', DelaySeconds: 900 }]);
    await expect(queue.send("q", {}, { delaySeconds: 901 })).rejects.toMatchObject({
      code: "invalid-argument",
    });
    await expect(queue.send("q", {}, { delaySeconds: 1.5 })).rejects.toMatchObject({
      code: "invalid-argument",
    });
  });

  it("forwards a received body byte for byte, even one that is not JSON", async () => {
    const { sent, queue } = recording();
    await queue.forward("dlq", '{"kind":"deliver", broken');
    expect(sent).toEqual([{ QueueUrl: "dlq", MessageBody: '{"kind":"deliver", broken' }]);
  });
});
