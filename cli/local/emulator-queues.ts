import {
  ChangeMessageVisibilityCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { FauxqsServer } from "fauxqs";

/**
 * Queues on a persisted fauxqs survive a restart with their messages. Two fauxqs 2.4.1 behaviours get in the way,
 * and both lose mail silently, so this module is the only place the stack creates queues or moves a message's
 * visibility:
 *
 * - `createQueue` on an existing queue replaces it with an empty one, and its `INSERT OR REPLACE` of the queue row
 *   cascades to the persisted messages. Calling it on every start dropped every mail still queued (verify,
 *   agent-step, outbound, and the DLQs) when the stack last stopped or crashed.
 * - `ChangeMessageVisibility` to 0 takes the message out of memory, then fails writing NULL into a NOT NULL column
 *   of its SQLite row: the message is in neither the queue nor flight until the next restart.
 */

export interface QueueRef {
  readonly queueUrl: string;
  readonly queueArn: string;
}

/**
 * Create a queue, or keep the existing one with its messages and give it the wanted attributes in place (as
 * CloudFormation updates a deployed queue: its messages stay).
 */
export async function ensureQueue(
  fauxqs: FauxqsServer,
  sqs: SQSClient,
  name: string,
  region: string,
  attributes: Record<string, string>,
): Promise<QueueRef> {
  const existing = fauxqs.inspectQueue(name);
  if (!existing) return fauxqs.createQueue(name, { region, attributes });
  // The persisted URL names the port of the run that created the queue; fauxqs resolves a queue URL by region and
  // name alone, so this is the same queue at the address the stack listens on now.
  const url = new URL(existing.url);
  url.port = String(fauxqs.port);
  const queueUrl = url.toString();
  await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: attributes }));
  return { queueUrl, queueArn: existing.arn };
}

/**
 * Hand back the messages a previous run of the stack had received and not finished (it was killed mid-batch):
 * they would otherwise stay invisible for the rest of their visibility timeout (30 s). Only the stack that owns
 * the data directory may call this, before its pollers start: one stack runs per directory, so nobody else can be
 * working on them. In AWS a crashed Lambda's messages come back after the visibility timeout instead. Each return
 * counts as a receive, so a message that keeps killing the stack still reaches its DLQ. Returns how many.
 */
export async function returnInFlight(
  fauxqs: FauxqsServer,
  sqs: SQSClient,
  queues: readonly { readonly name: string; readonly queueUrl: string }[],
): Promise<number> {
  let returned = 0;
  for (const { name, queueUrl } of queues) {
    for (const m of fauxqs.inspectQueue(name)?.messages.inflight ?? []) {
      // 1 s, not 0: see the module comment (0 loses the message on a persisted fauxqs).
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: m.receiptHandle,
          VisibilityTimeout: 1,
        }),
      );
      returned++;
    }
  }
  return returned;
}
