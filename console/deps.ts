import { type AdminCatalog, adminCatalog } from "../shared/admin/catalog.ts";
import type { AwsClients } from "../shared/aws/clients.ts";
import type { Resources } from "../shared/config/resources.ts";
import type { DeploymentConfig } from "../shared/config/schema.ts";
import type { Logger } from "../shared/logger.ts";
import { SqsQueue } from "../shared/queue/sqs-queue.ts";
import { AdminRepo } from "../shared/store/admin-repo.ts";
import { AuditRepo } from "../shared/store/audit-repo.ts";
import { BlobStore } from "../shared/store/blob-store.ts";
import { DeliveryEventReads } from "../shared/store/delivery-event-reads.ts";
import { FailureLog } from "../shared/store/failure-log.ts";
import { IndexReads } from "../shared/store/index-reads.ts";
import { MessageRepo } from "../shared/store/message-repo.ts";
import { PlanStore } from "../shared/store/plan-store.ts";
import { RunEventRepo } from "../shared/store/run-event-repo.ts";
import { RunRepo } from "../shared/store/run-repo.ts";
import { StateRepo } from "../shared/store/state-repo.ts";
import { ThreadRepo } from "../shared/store/thread-repo.ts";
import { TraceLookups } from "../shared/store/trace-lookups.ts";
import type { ToolRegistry } from "../shared/tool-framework/registry.ts";
import { grantableNames } from "../tools/index.ts";
import { type SessionRevocations, stateRevocations } from "./auth/revocations.ts";

/**
 * Everything the console reads and writes, through the same repositories the CLI and the functions use: there is
 * no second way into the data. Writes are the admin tables (AdminRepo, the import path), the audit log, a plan
 * decision marker in `state`, and a confirm message on the agent-step queue (the mailed confirmation's path).
 */
export interface ConsoleDeps {
  readonly admin: AdminRepo;
  readonly runs: RunRepo;
  readonly runEvents: RunEventRepo;
  readonly messages: MessageRepo;
  readonly threads: ThreadRepo;
  readonly blobs: BlobStore;
  readonly state: StateRepo;
  readonly plans: PlanStore;
  readonly index: IndexReads;
  readonly audit: AuditRepo;
  readonly lookups: TraceLookups;
  /** SES's bounces, complaints, rejects and delivery delays, per agent. */
  readonly deliveryEvents: DeliveryEventReads;
  /** G19: every failure that must reach a person, per day (one Query of `state` per day shown). */
  readonly failures: FailureLog;
  /** Signed-out sessions, checked on every request. */
  readonly sessions: SessionRevocations;
  readonly registry: ToolRegistry;
  readonly config: DeploymentConfig;
  /** What admin writes are checked against: the config's domains and models, the registry's tools. */
  readonly catalog: AdminCatalog;
  /** A JSON body on the agent-step queue. */
  enqueueStep(body: object): Promise<void>;
  now(): Date;
  readonly logger: Logger;
}

export function consoleDeps(input: {
  clients: AwsClients;
  resources: Resources;
  config: DeploymentConfig;
  registry: ToolRegistry;
  logger: Logger;
  now?: () => Date;
}): ConsoleDeps {
  const { clients, resources } = input;
  const base = { dynamo: clients.dynamo, tables: resources.tables };
  const state = new StateRepo(base);
  const queue = new SqsQueue({ sqs: clients.sqs });
  const now = input.now ?? (() => new Date());
  return {
    admin: new AdminRepo({ ...base, logger: input.logger }),
    runs: new RunRepo(base),
    runEvents: new RunEventRepo(base),
    messages: new MessageRepo(base),
    threads: new ThreadRepo(base),
    blobs: new BlobStore({ s3: clients.s3, bucket: resources.bucket }),
    state,
    plans: new PlanStore({ ...base, state }),
    index: new IndexReads(base),
    audit: new AuditRepo({ ...base, now }),
    lookups: new TraceLookups(state),
    deliveryEvents: new DeliveryEventReads(base),
    failures: new FailureLog(base),
    sessions: stateRevocations(state, input.config.console.sessionMinutes * 60),
    registry: input.registry,
    config: input.config,
    catalog: adminCatalog(input.config, grantableNames(input.registry)),
    enqueueStep: async (body) => {
      await queue.send(resources.queues.agentStep, body);
    },
    now,
    logger: input.logger,
  };
}
