// Front door of shared/ports: the records and store interfaces the cores share. Outside this folder, import
// this file only (docs/architecture.md).

export type { AuditEntry, AuditLog, NewAuditEntry } from "./audit.ts";
export type { Blobs } from "./blobs.ts";
export {
  capDetail,
  FAILURE_CLASSES,
  FAILURE_EVENT,
  FAILURE_LOG,
  FAILURE_METRICS,
  type FailureClass,
  type FailureEntry,
  type FailureReader,
  type FailureReport,
  type FailureSink,
  logFailure,
  type SenderNoticeOutcome,
  UNKNOWN_OUTCOME_LOG,
} from "./failures.ts";
export type {
  ClaimResult,
  CompleteResult,
  InboundClaim,
  InboundLedger,
  InboundOutcome,
  InboundRecord,
  RefusalRecord,
} from "./inbound.ts";
export type { IndexReader, Page, PageRequest } from "./lists.ts";
export {
  type AddressingKind,
  type AttachmentRef,
  bodyText,
  inlineBody,
  type MessageProof,
  type MessagePutResult,
  type MessageRecord,
  type MessageStore,
  SENT_INLINE_BODY_MAX_BYTES,
  type ThreadedBy,
} from "./messages.ts";
export type {
  PlanBook,
  PlanOperation,
  PlanOpResult,
  PlanPort,
  PlanRecord,
  PlanState,
  RequesterProof,
  StoredOperation,
} from "./plans.ts";
export { ASKING_TEXT_MAX, planFromItem, proofLine } from "./plans.ts";
export type {
  CreateRunResult,
  FinalRunState,
  FinishRunResult,
  NewRun,
  RunCreator,
  RunEvent,
  RunEventReader,
  RunFailureMark,
  RunReader,
  RunRecord,
  RunState,
  RunTable,
  StoredRunEvent,
} from "./runs.ts";
export {
  deliveryEventsPk,
  type SendOutcome,
  type SendOutcomeKind,
  type SendOutcomeLog,
  type SendOutcomeReader,
  type SendOutcomeRecipient,
} from "./send-outcomes.ts";
export type { Item, KeyValueState, PutIfAbsentResult } from "./state.ts";
export {
  MAX_PARTICIPANTS_PER_MAIL,
  type RecordIdResult,
  type SentMail,
  type SentMailLookup,
  type SentMailRef,
  type ThreadHeaders,
  type ThreadIndex,
  type ThreadReader,
  type ThreadRecord,
  type ThreadResolution,
} from "./threads.ts";
export type { SendSummary, TraceReader } from "./trace.ts";
export {
  type MailText,
  noWebhooks,
  toEvent,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SECRET_PREFIX,
  type WebhookEvent,
  type WebhookSink,
} from "./webhooks.ts";
