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
  /**
   * Admin tables are operator-edited configuration; runtime tables are engine state; the audit table is the
   * record of admin changes, the console's and the CLI's (no pipeline function reads or writes it).
   */
  readonly kind: "admin" | "runtime" | "audit";
  /**
   * Global secondary indexes (all attributes projected; keys are strings). The console's paged lists read through
   * them instead of scanning. CloudFormation adds at most one new index per existing table per deployment, so a
   * table gains at most one index per release.
   */
  readonly indexes?: readonly IndexSpec[];
}

export interface IndexSpec {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

export const TABLES = {
  agents: { partitionKey: "address", kind: "admin" },
  /** sk `rule` = `<effect>#<pattern>`, so one pattern has at most one rule per effect. */
  accessRules: { partitionKey: "agent", sortKey: "rule", kind: "admin" },
  /**
   * Where each agent's mail may go: same key and pattern algebra as access rules, sk `rule` =
   * `<effect>#<pattern>`.
   */
  outboundRules: { partitionKey: "agent", sortKey: "rule", kind: "admin" },
  toolkits: { partitionKey: "id", kind: "admin" },
  responsibilities: { partitionKey: "id", kind: "admin" },
  approvers: { partitionKey: "toolkit", sortKey: "address", kind: "admin" },
  /** Webhook endpoints (docs/events.md): where signed events go. No secret is stored here (G16). */
  webhooks: { partitionKey: "id", kind: "admin" },
  /** MCP tool servers, each with its reviewed tools pinned by hash (docs/mcp.md). */
  mcpServers: { partitionKey: "id", kind: "admin" },
  /** One item per (SES message id, envelope recipient): the gate verdict, the dedupe marker and the evidence. */
  inbound: {
    partitionKey: "sesMessageId",
    sortKey: "recipient",
    kind: "runtime",
    /**
     * Refused and dropped mail per UTC day of the verdict, newest first (sparse: only refusals carry `refusalDay`
     * and `refusalAt`, set when verify completes). Day partitions keep a flood of refusals off one index key.
     */
    indexes: [{ name: "refusalsByDay", partitionKey: "refusalDay", sortKey: "refusalAt" }],
  },
  /** The agent's mailbox: accepted inbound and sent outbound mail; sk is the message id. */
  messages: {
    partitionKey: "agent",
    sortKey: "id",
    kind: "runtime",
    /** A thread's messages in order (ids sort by time) without reading the agent's whole mailbox. */
    indexes: [{ name: "byThread", partitionKey: "threadId", sortKey: "id" }],
  },
  threads: {
    partitionKey: "agent",
    sortKey: "threadId",
    kind: "runtime",
    /** An agent's threads, most recently active first. */
    indexes: [{ name: "byActivity", partitionKey: "agent", sortKey: "lastMessageAt" }],
  },
  runs: {
    partitionKey: "runId",
    kind: "runtime",
    /** An agent's runs, newest first. */
    indexes: [{ name: "byAgent", partitionKey: "agent", sortKey: "createdAt" }],
  },
  runEvents: { partitionKey: "runId", sortKey: "seq", sortType: "N", kind: "runtime" },
  /**
   * Counters (budgets), idempotency keys, send state machines, pending plans: small conditional items.
   * Families by pk prefix, e.g. `msgid#<agent>` (sk = a Message-ID, → threadId: the per-agent threading index).
   */
  state: {
    partitionKey: "pk",
    sortKey: "sk",
    ttlAttribute: "expiresAt",
    kind: "runtime",
    /** Plans by state (sparse: only plan items carry `planState`), newest first: the console's pending list. */
    indexes: [{ name: "plansByState", partitionKey: "planState", sortKey: "planAt" }],
  },
  /** Every admin change made in the console: who, when, before and after. sk `at` = `<ISO time>#<random>`. */
  audit: { partitionKey: "stream", sortKey: "at", kind: "audit" },
} as const satisfies Record<string, TableSpec>;

export type TableKey = keyof typeof TABLES;
export const TABLE_KEYS = Object.keys(TABLES) as TableKey[];

/** S3 key prefixes in the mail bucket. Least privilege in CDK is expressed over these prefixes. */
export const PREFIXES = {
  /** Raw inbound mail as SES wrote it. Never deleted by the pipeline; verify reads it, console admins download it. */
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

/**
 * The state table's item families, by partition key (`<family>#<id>`): each key is spelled here only, so two
 * families cannot collide and a reader (the console, the CLI, a trace lookup) finds what a writer wrote.
 */
export const STATE_KEYS = {
  /** A tool call's cached result, by its idempotency key (`<runId>:<round>:<callId>`). */
  toolResult: (callKey: string): string => `toolres#${callKey}`,
  /** An outbound send's state machine, by request id. */
  send: (requestId: string): string => `send#${requestId}`,
  /** A run's plan (G14). */
  plan: (runId: string): string => `plan#${runId}`,
  /** A confirm code → its plan's run. */
  planCode: (code: string): string => `plancode#${code}`,
  /** Per-agent threading index: sk = a Message-ID, → threadId. */
  messageIds: (agent: string): string => `msgid#${agent}`,
  /** One signed message starts at most one run per agent (G2): sk = the proving signature. */
  signed: (agent: string): string => `signed#${agent}`,
  /** An agent's tool activity in a thread, shown to its later runs there. */
  activity: (agent: string, threadId: string): string => `activity#${agent}#${threadId}`,
  /** A run whose channels closed (G18). */
  channel: (runId: string): string => `channel#${runId}`,
  /** Files an agent created, by agent. */
  files: (agent: string): string => `file#${agent}`,
  /** An agent's remembered facts, per scope. */
  facts: (agent: string, scope: string): string => `facts#${agent}#${scope}`,
  /** Failures of one UTC day (G19). */
  failures: (day: string): string => `failures#${day}`,
  /** The once-a-day mark of a failed run's notice to its sender (G19). */
  runFailureNotice: (agent: string, sender: string): string => `runfailnotice#${agent}#${sender}`,
  /** SES delivery events (bounces, complaints) by agent. */
  deliveryEvents: (agent: string): string => `delivery#${agent}`,
  /** A day's run or token counter (sk = the UTC day), for an agent or a sender's routing key (G10). */
  budget: (what: "runs" | "tokens", whose: "agent" | "sender", id: string): string =>
    `budget#${what}#${whose}#${id}`,
  /** The mark that a run was counted against the day's runs (a redelivered round 1 counts once). */
  budgetRun: (runId: string): string => `budget-run#${runId}`,
  /** The once-a-day mark of a sender's budget notice (sk = the UTC day). */
  budgetNotice: (senderKey: string): string => `budget-notice#${senderKey}`,
  /** A run's calls to each MCP server (sk = the server id): the per-run call budget. */
  mcpCalls: (runId: string): string => `mcpcalls#${runId}`,
  /** Trace events a run records once however many rounds see the same thing (sk = what was seen). */
  runOnce: (runId: string): string => `runonce#${runId}`,
  /**
   * Signed events' worker state; every family starts `webhook-`, the only prefix its IAM grant allows
   * (infra/constructs/webhooks.ts): an endpoint's deliveries record, its attempt counters, and (one partition,
   * sk = the endpoint) the breakers.
   */
  webhookDeliveries: (endpointId: string): string => `webhook-deliveries#${endpointId}`,
  webhookAttempts: (endpointId: string): string => `webhook-attempts#${endpointId}`,
  webhookBreaker: "webhook-breaker",
} as const;
