import type { SqsQueue } from "../../shared/queue/sqs-queue.ts";

export interface SentMessage {
  readonly queueUrl: string;
  /** The body as the consumer receives it: parsed back from the JSON sent. */
  readonly body: unknown;
  readonly delaySeconds?: number;
  readonly messageId: string;
}

export interface RecordingQueue extends Pick<SqsQueue, "send"> {
  readonly sent: SentMessage[];
  /** The bodies sent to one queue, in order. */
  bodies(queueUrl: string): unknown[];
}

/**
 * The queue (SqsQueue) as a recorder: what a consumer would receive (the JSON round trip, so `undefined` fields
 * vanish and dates become strings, as on SQS), with the same delay bound. Run against the real one (SQS in fauxqs)
 * by test/contracts/queue.contract.ts.
 */
export function recordingQueue(): RecordingQueue {
  const sent: SentMessage[] = [];
  return {
    sent,
    async send(queueUrl, body, opts = {}) {
      const delay = opts.delaySeconds;
      if (delay !== undefined && !(Number.isInteger(delay) && delay >= 0 && delay <= 900))
        throw new Error(`delaySeconds must be an integer 0-900, got ${delay}`);
      const messageId = `msg-${sent.length + 1}`;
      sent.push({
        queueUrl,
        body: JSON.parse(JSON.stringify(body)) as unknown,
        ...(delay !== undefined ? { delaySeconds: delay } : {}),
        messageId,
      });
      return messageId;
    },
    bodies: (queueUrl) => sent.filter((m) => m.queueUrl === queueUrl).map((m) => m.body),
  };
}
