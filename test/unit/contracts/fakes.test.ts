import { describe } from "vitest";
import { sendStateStore } from "../../../shared/store/send-state-store.ts";
import type { StateRepo } from "../../../shared/store/state-repo.ts";
import { blobsContract } from "../../contracts/blobs.contract.ts";
import { breakerContract } from "../../contracts/breaker.contract.ts";
import { inboundContract } from "../../contracts/inbound.contract.ts";
import { messagesContract } from "../../contracts/messages.contract.ts";
import { planStoreContract } from "../../contracts/plan-store.contract.ts";
import { queueContract } from "../../contracts/queue.contract.ts";
import { roundLedgerContract } from "../../contracts/round-ledger.contract.ts";
import { runEventLogContract } from "../../contracts/run-event-log.contract.ts";
import { runTableContract } from "../../contracts/run-table.contract.ts";
import { sendStateContract } from "../../contracts/send-state.contract.ts";
import { stateContract } from "../../contracts/state.contract.ts";
import { threadActivityContract } from "../../contracts/thread-activity.contract.ts";
import { threadsContract } from "../../contracts/threads.contract.ts";
import { memoryBlobs } from "../../fakes/blobs.ts";
import { memoryBreaker } from "../../fakes/events.ts";
import { memoryInbound } from "../../fakes/inbound.ts";
import { memoryMessages } from "../../fakes/messages.ts";
import { memoryPlanStore } from "../../fakes/plan-store.ts";
import { recordingQueue } from "../../fakes/queue.ts";
import { memoryRoundLedger } from "../../fakes/round-ledger.ts";
import { memoryRunEventLog } from "../../fakes/run-event-log.ts";
import { memoryRunTable } from "../../fakes/run-table.ts";
import { memoryStateStore } from "../../fakes/send-state.ts";
import { memoryState } from "../../fakes/state.ts";
import { memoryThreadActivity } from "../../fakes/thread-activity.ts";
import { memoryThreads } from "../../fakes/threads.ts";

/**
 * Every port's contract against its in-memory fake (test/fakes/). test/integration/adapter-contracts.test.ts runs
 * the same suites against the emulator-backed adapters: a fake that drifts from the real thing fails one of them.
 */

describe("the in-memory fakes", () => {
  runTableContract(() => memoryRunTable());
  roundLedgerContract((clock) => memoryRoundLedger({ now: clock.ms }));
  runEventLogContract(() => {
    const runs = memoryRunTable();
    return {
      log: memoryRunEventLog(),
      createRun: async (runId) => {
        await runs.create({
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
    };
  });
  planStoreContract(() => memoryPlanStore());
  stateContract((clock) => memoryState({ now: clock.now }));
  breakerContract(() => memoryBreaker());
  queueContract(() => {
    const queue = recordingQueue();
    return { queue, url: "queue/contract", received: async () => queue.bodies("queue/contract") };
  });
  messagesContract(() => memoryMessages());
  blobsContract(() => memoryBlobs());
  threadsContract(() => memoryThreads());
  inboundContract((clock) => memoryInbound({ now: clock.now }));
  threadActivityContract(() => memoryThreadActivity());
  sendStateContract(() => memoryStateStore());
});

// The real send-state adapter over the fake state table: one fake (the table) serves every adapter built on it.
describe("sendStateStore over the memory state table", () => {
  sendStateContract(() => sendStateStore(memoryState() as unknown as StateRepo));
});
