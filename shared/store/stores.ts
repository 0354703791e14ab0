import type { AwsClients } from "../aws/index.ts";
import type { Resources } from "../config/index.ts";
import type { Logger } from "../logger.ts";
import { SqsQueue } from "../queue/index.ts";
import { AdminRepo } from "./admin-repo.ts";
import { BlobStore } from "./blob-store.ts";
import { FailureLog } from "./failure-log.ts";
import { InboundRepo } from "./inbound-repo.ts";
import { MessageRepo } from "./message-repo.ts";
import { PlanStore } from "./plan-store.ts";
import { DynamoRoundLedger } from "./round-ledger.ts";
import { RunEventRepo } from "./run-event-repo.ts";
import { RunRepo } from "./run-repo.ts";
import { StateRepo } from "./state-repo.ts";
import { ThreadActivity } from "./thread-activity.ts";
import { ThreadRepo } from "./thread-repo.ts";

export interface Stores {
  readonly admin: AdminRepo;
  readonly inbound: InboundRepo;
  readonly messages: MessageRepo;
  readonly threads: ThreadRepo;
  readonly runs: RunRepo;
  readonly runEvents: RunEventRepo;
  readonly state: StateRepo;
  readonly blobs: BlobStore;
  readonly queue: SqsQueue;
  /** G19: every failure that must reach a person, per day (shared/store/failure-log.ts). */
  readonly failures: FailureLog;
  /** G14: runs' proposed operations and their confirm codes (in the state table). */
  readonly plans: PlanStore;
  /** agent-step's per-round claims (in the state table). */
  readonly rounds: DynamoRoundLedger;
  /** Tool outcomes per thread, shown to a later run in the thread (in the state table). */
  readonly activity: ThreadActivity;
}

/** Every repository over one set of clients: what a handler builds once at module scope. */
export function makeStores(
  clients: AwsClients,
  resources: Resources,
  logger: Logger,
  now?: () => Date,
): Stores {
  const base = { dynamo: clients.dynamo, tables: resources.tables, ...(now ? { now } : {}) };
  const state = new StateRepo(base);
  return {
    admin: new AdminRepo({ ...base, logger }),
    inbound: new InboundRepo(base),
    messages: new MessageRepo(base),
    threads: new ThreadRepo(base),
    runs: new RunRepo(base),
    runEvents: new RunEventRepo(base),
    state,
    blobs: new BlobStore({ s3: clients.s3, bucket: resources.bucket }),
    queue: new SqsQueue({ sqs: clients.sqs }),
    failures: new FailureLog(base),
    plans: new PlanStore({ ...base, state }),
    rounds: new DynamoRoundLedger({ dynamo: clients.dynamo, tables: resources.tables }),
    activity: new ThreadActivity({ ...base, state }),
  };
}
