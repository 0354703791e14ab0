import type { AwsClients } from "../../shared/aws/index.ts";
import type { Logger } from "../../shared/logger.ts";
import { abandonSend } from "../../shared/outbound/index.ts";
import {
  DynamoRoundLedger,
  listUncertainSends,
  makeStores,
  sendStateStore,
} from "../../shared/store/index.ts";
import { returnInFlight } from "./emulator-queues.ts";
import { type Emulators, QUEUE_NAMES } from "./emulators.ts";

/**
 * A persisted stack starting where a stopped or killed one left off. Only one stack runs per data directory
 * (stack.json), and this runs before the pollers start, so whatever the previous stack was holding has no live
 * holder. Each hold is a lease that exists to tell a slow worker from a dead one; here the answer is known, and
 * waiting it out locally would lose the mail, because the local queues redeliver three times, 30 s apart:
 *
 * - queue messages it had received and not finished come back now instead of after their visibility timeout;
 * - agent-step rounds it had claimed are released: their 15-minute lease would make every redelivery `busy`, and
 *   the last one would fail the run (`step-retries-exhausted`: a mail never answered);
 * - outbound sends it left between `sending` and `sent` become `unknown` with the alarm line (docs/outbound.md):
 *   whether SES took the mail cannot be known, and Postern never sends twice. Left alone they would stay
 *   `sending`, their message in the DLQ after three `retry`s, and no alarm line.
 *
 * In AWS none of this is needed: a crashed Lambda's message returns after the visibility timeout (6 × the
 * function's timeout), by which time the round's or the send's lease has expired and the redelivery acts on it.
 */
export async function takeOverFromStoppedStack(
  emulators: Emulators,
  clients: AwsClients,
  logger: Logger,
): Promise<void> {
  const { resources } = emulators;
  const messagesReturned = await returnInFlight(
    emulators.fauxqs,
    clients.sqs,
    // Not the events queue: its in-flight messages are mostly waiting out a retry's backoff (a visibility change),
    // and handing them back would retry them early; one killed mid-attempt returns after its visibility timeout.
    (["verify", "agentStep", "outbound"] as const).map((k) => ({
      name: QUEUE_NAMES[k],
      queueUrl: resources.queues[k],
    })),
  );
  const roundsReleased = await new DynamoRoundLedger({
    dynamo: clients.dynamo,
    tables: resources.tables,
  }).releaseAll();
  const now = new Date();
  // leaseMs 0: every `sending` item, however young; its worker died with the previous stack.
  const sending = (
    await listUncertainSends(clients.dynamo, resources.tables.state, { now, leaseMs: 0 })
  ).filter((r) => r.state === "sending");
  const state = sendStateStore(makeStores(clients, resources, logger).state);
  for (const record of sending) await abandonSend(record, { state, clock: () => new Date(), logger });
  const report = takeOverReport({ messagesReturned, roundsReleased, sendsUnknown: sending.length });
  if (report) logger.info(report);
}

export interface TakeOver {
  readonly messagesReturned: number;
  readonly roundsReleased: number;
  readonly sendsUnknown: number;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * What a restart says it did, as one sentence an operator reads on the start screen (a raw object with
 * `roundsReleased` told them nothing); null when there was nothing to take over.
 */
export function takeOverReport(t: TakeOver): string | null {
  const parts = [
    t.messagesReturned > 0 &&
      `${count(t.messagesReturned, "queued mail or step", "queued mails and steps")} it was handling handed back now`,
    t.roundsReleased > 0 &&
      `${count(t.roundsReleased, "agent round", "agent rounds")} it had claimed released to run again`,
    t.sendsUnknown > 0 &&
      `${count(t.sendsUnknown, "send", "sends")} it left mid-way marked unknown (never sent twice; npx postern outbound unknown lists them)`,
  ].filter((p): p is string => typeof p === "string");
  return parts.length === 0 ? null : `took over from the stack that stopped: ${parts.join("; ")}`;
}
