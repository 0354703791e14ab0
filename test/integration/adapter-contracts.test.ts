import { DeleteMessageCommand, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import { silentLogger } from "../../shared/logger.ts";
import { InboundRepo } from "../../shared/store/inbound-repo.ts";
import { PlanStore } from "../../shared/store/plan-store.ts";
import { DynamoRoundLedger } from "../../shared/store/round-ledger.ts";
import { RunEventRepo } from "../../shared/store/run-event-repo.ts";
import { sendStateStore } from "../../shared/store/send-state-store.ts";
import { StateRepo } from "../../shared/store/state-repo.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { ThreadActivity } from "../../shared/store/thread-activity.ts";
import { dynamoWebhookState } from "../../shared/webhooks/index.ts";
import { blobsContract } from "../contracts/blobs.contract.ts";
import { breakerContract } from "../contracts/breaker.contract.ts";
import { fresh } from "../contracts/ids.ts";
import { inboundContract } from "../contracts/inbound.contract.ts";
import { messagesContract } from "../contracts/messages.contract.ts";
import { planStoreContract } from "../contracts/plan-store.contract.ts";
import { queueContract } from "../contracts/queue.contract.ts";
import { roundLedgerContract } from "../contracts/round-ledger.contract.ts";
import { runEventLogContract } from "../contracts/run-event-log.contract.ts";
import { runTableContract } from "../contracts/run-table.contract.ts";
import { sendStateContract } from "../contracts/send-state.contract.ts";
import { stateContract } from "../contracts/state.contract.ts";
import { threadActivityContract } from "../contracts/thread-activity.contract.ts";
import { threadsContract } from "../contracts/threads.contract.ts";

/**
 * Every port's contract against the adapter that runs in Lambda, over dynalite and fauxqs (the same suites run
 * against the in-memory fakes in test/unit/contracts/fakes.test.ts). One set of emulators for the file: each case
 * uses fresh ids.
 */

let em: Emulators;
let clients: AwsClients;
let stores: Stores;
const base = () => ({ dynamo: clients.dynamo, tables: em.resources.tables });

beforeAll(async () => {
  em = await startEmulators();
  clients = makeClients(em.resources);
  stores = makeStores(clients, em.resources, silentLogger);
});
afterAll(async () => {
  clients.dynamo.destroy();
  clients.s3.destroy();
  clients.sqs.destroy();
  await em.stop();
});

describe("the emulator-backed adapters", () => {
  breakerContract(() => dynamoWebhookState(base()).breaker);
  runTableContract(() => stores.runs);
  roundLedgerContract((clock) => new DynamoRoundLedger({ ...base(), now: clock.ms }));
  runEventLogContract(() => ({
    // Two containers whose clocks read the same millisecond and whose counters agree: every number collides.
    log: new RunEventRepo({ ...base(), now: () => new Date(1_800_000_000_000) }),
    second: new RunEventRepo({ ...base(), now: () => new Date(1_800_000_000_000) }),
    createRun: async (runId) => {
      await stores.runs.create({
        runId,
        agent: "a@x.example",
        kind: "reply",
        messageId: "m",
        responsibilityId: null,
        sender: "s@x.example",
        threadId: "t",
        maxRounds: 3,
        correlationId: "c",
      });
    },
  }));
  planStoreContract(() => new PlanStore({ ...base(), state: stores.state }));
  stateContract((clock) => new StateRepo({ ...base(), now: clock.now }));
  queueContract(() => {
    const { queueUrl: url } = em.fauxqs.createQueue(fresh("contract"), { region: em.resources.region });
    return {
      queue: stores.queue,
      url,
      async received() {
        const r = await clients.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        const messages = r.Messages ?? [];
        for (const m of messages)
          await clients.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
        return messages.map((m) => JSON.parse(m.Body ?? "null") as unknown);
      },
    };
  });
  messagesContract(() => stores.messages);
  blobsContract(() => stores.blobs);
  threadsContract(() => stores.threads);
  inboundContract((clock) => new InboundRepo({ ...base(), now: clock.now }));
  threadActivityContract(() => new ThreadActivity({ ...base(), state: stores.state }));
  sendStateContract(() => sendStateStore(stores.state));
});
