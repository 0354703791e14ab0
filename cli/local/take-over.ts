import type { AwsClients } from "../../shared/aws/clients.ts";
import type { Logger } from "../../shared/logger.ts";
import { DynamoRoundLedger } from "../../shared/store/round-ledger.ts";
import { returnInFlight } from "./emulator-queues.ts";
import { type Emulators, QUEUE_NAMES } from "./emulators.ts";

/**
 * A persisted stack starting where a stopped or killed one left off. Only one stack runs per data directory
 * (stack.json), and this runs before the pollers start, so whatever the previous stack was holding has no live
 * holder and would only make its mail wait:
 *
 * - queue messages it had received and not finished come back now instead of after their visibility timeout;
 * - agent-step rounds it had claimed are released: their 15-minute lease outlives the local queue's three 30-s
 *   deliveries, so every redelivery would be `busy` and the last one would fail the run (a mail never answered).
 *
 * In AWS neither needs doing: a crashed Lambda's message returns after the visibility timeout (60 min for
 * agent-step), by which time its round's lease has expired and the redelivery takes the round over.
 * Outbound sends caught between `sending` and `sent` are deliberately left alone: whether SES took the mail is
 * unknown, and the outbound never sends twice (docs/outbound.md).
 */
export async function takeOverFromStoppedStack(
  emulators: Emulators,
  clients: AwsClients,
  logger: Logger,
): Promise<void> {
  const { resources } = emulators;
  const returned = await returnInFlight(
    emulators.fauxqs,
    clients.sqs,
    (Object.keys(QUEUE_NAMES) as (keyof typeof QUEUE_NAMES)[]).map((k) => ({
      name: QUEUE_NAMES[k],
      queueUrl: resources.queues[k],
    })),
  );
  const released = await new DynamoRoundLedger({
    dynamo: clients.dynamo,
    tables: resources.tables,
  }).releaseAll();
  if (returned + released > 0)
    logger.info("took over from the stopped stack", { messagesReturned: returned, roundsReleased: released });
}
