import type { AwsClients } from "../aws/index.ts";
import type { Resources } from "../config/index.ts";
import type { Logger } from "../logger.ts";
import { SqsQueue } from "../queue/index.ts";
import { AdminRepo } from "./admin-repo.ts";
import { BlobStore } from "./blob-store.ts";
import { FailureLog } from "./failure-log.ts";
import { InboundRepo } from "./inbound-repo.ts";
import { MessageRepo } from "./message-repo.ts";
import { RunEventRepo } from "./run-event-repo.ts";
import { RunRepo } from "./run-repo.ts";
import { StateRepo } from "./state-repo.ts";
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
}

/** Every repository over one set of clients: what a handler builds once at module scope. */
export function makeStores(
  clients: AwsClients,
  resources: Resources,
  logger: Logger,
  now?: () => Date,
): Stores {
  const base = { dynamo: clients.dynamo, tables: resources.tables, ...(now ? { now } : {}) };
  return {
    admin: new AdminRepo({ ...base, logger }),
    inbound: new InboundRepo(base),
    messages: new MessageRepo(base),
    threads: new ThreadRepo(base),
    runs: new RunRepo(base),
    runEvents: new RunEventRepo(base),
    state: new StateRepo(base),
    blobs: new BlobStore({ s3: clients.s3, bucket: resources.bucket }),
    queue: new SqsQueue({ sqs: clients.sqs }),
    failures: new FailureLog(base),
  };
}
