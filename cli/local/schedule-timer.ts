import type { SQSClient } from "@aws-sdk/client-sqs";
import type { TickPayload } from "../../shared/payloads/index.ts";
import { SqsQueue } from "../../shared/queue/index.ts";

/**
 * The local stand-in for the EventBridge Scheduler rule: on every minute boundary it sends the same
 * `{"tick": "<time>"}` message to the agent-step queue that the deployed schedule sends.
 */
export function startScheduleTimer(
  sqs: Pick<SQSClient, "send">,
  queueUrl: string,
  now: () => number = Date.now,
): { stop(): void } {
  const queue = new SqsQueue({ sqs });
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    const wait = 60_000 - (now() % 60_000);
    timer = setTimeout(async () => {
      const tick = new Date(Math.floor(now() / 60_000) * 60_000).toISOString();
      try {
        await queue.send(queueUrl, { tick } satisfies TickPayload);
      } catch (err) {
        process.stderr.write(`[schedule] tick ${tick} not sent: ${(err as Error).message}\n`);
      }
      schedule();
    }, wait);
    timer.unref();
  };
  schedule();
  return { stop: () => clearTimeout(timer) };
}
