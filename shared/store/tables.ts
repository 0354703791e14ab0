/**
 * Every DynamoDB table Postern uses, in one place: the local stack creates them from this list, CDK provisions
 * them from it, and the repositories read their key names from it. Attributes other than keys are free-form
 * (validated by the repositories). All keys are strings unless `sortType` says otherwise.
 */
export interface TableSpec {
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly sortType?: "S" | "N";
  /** Attribute holding an epoch-seconds expiry; CDK enables DynamoDB TTL on it. */
  readonly ttlAttribute?: string;
  /** Admin tables are operator-edited configuration; runtime tables are engine state. */
  readonly kind: "admin" | "runtime";
}

export const TABLES = {
  agents: { partitionKey: "address", kind: "admin" },
  /** sk `rule` = `<effect>#<pattern>`, so one pattern has at most one rule per effect. */
  accessRules: { partitionKey: "agent", sortKey: "rule", kind: "admin" },
  toolkits: { partitionKey: "id", kind: "admin" },
  responsibilities: { partitionKey: "id", kind: "admin" },
  approvers: { partitionKey: "toolkit", sortKey: "address", kind: "admin" },
  /** One item per (SES message id, envelope recipient): the gate verdict, the dedupe marker and the evidence. */
  inbound: { partitionKey: "sesMessageId", sortKey: "recipient", kind: "runtime" },
  /** The agent's mailbox: accepted inbound and sent outbound mail; sk is the message id. */
  messages: { partitionKey: "agent", sortKey: "id", kind: "runtime" },
  threads: { partitionKey: "agent", sortKey: "threadId", kind: "runtime" },
  runs: { partitionKey: "runId", kind: "runtime" },
  runEvents: { partitionKey: "runId", sortKey: "seq", sortType: "N", kind: "runtime" },
  /**
   * Counters (budgets), idempotency keys, send state machines, pending plans: small conditional items.
   * Families by pk prefix, e.g. `msgid#<agent>` (sk = a Message-ID, → threadId: the per-agent threading index).
   */
  state: { partitionKey: "pk", sortKey: "sk", ttlAttribute: "expiresAt", kind: "runtime" },
} as const satisfies Record<string, TableSpec>;

export type TableKey = keyof typeof TABLES;
export const TABLE_KEYS = Object.keys(TABLES) as TableKey[];

/** S3 key prefixes in the mail bucket. Least privilege in CDK is expressed over these prefixes. */
export const PREFIXES = {
  /** Raw inbound mail as SES wrote it. Never deleted by the pipeline; only verify reads it. */
  inbound: "inbound/",
  /** Accepted message bodies (parsed text) per agent: `mail/<agent>/<messageId>/...`. */
  mail: "mail/",
  /** Attachments of accepted mail and files created by agents: `files/<agent>/<id>`. */
  files: "files/",
  /** Run transcripts: `transcripts/<runId>.json`. */
  transcripts: "transcripts/",
  /** Raw outbound mail as sent: `outbound/<requestId>.eml`. */
  outbound: "outbound/",
} as const;
