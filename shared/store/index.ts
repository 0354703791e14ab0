// Front door of shared/store: the DynamoDB and S3 repositories, and the platform every composition root
// takes. Outside this folder, import this file only (docs/architecture.md).

export { AdminRepo, DEFAULT_TOOLKIT } from "./admin-repo.ts";
export { AuditRepo } from "./audit-repo.ts";
export { BlobStore } from "./blob-store.ts";
export { SendOutcomeReads } from "./delivery-event-reads.ts";
export { isConditionFailed, queryAll } from "./dynamo-util.ts";
export { createFactStore } from "./fact-store.ts";
export { FailureLog } from "./failure-log.ts";
export { failureReporter } from "./failure-reporter.ts";
export { IndexReads } from "./index-reads.ts";
export { MessageRepo } from "./message-repo.ts";
export { PlanStore } from "./plan-store.ts";
export { type BasePlatform, makeBasePlatform, makePlatform, type Platform } from "./platform.ts";
export { DynamoRoundLedger } from "./round-ledger.ts";
export { RunEventRepo } from "./run-event-repo.ts";
export { RunRepo, transcriptKey } from "./run-repo.ts";
export { listUncertainSends, sendStateStore } from "./send-state-store.ts";
export { StateRepo } from "./state-repo.ts";
export { makeStores, type Stores } from "./stores.ts";
export { normalizeMessageId } from "./thread-repo.ts";
export { TraceLookups } from "./trace-lookups.ts";
