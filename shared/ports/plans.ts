// Ports: the record shapes and store interfaces the cores (agent, intake, outbound) are written against.
// shared/store implements them over DynamoDB and S3; test/fakes implements them in memory.

/** One proposed operation: exactly the tool and the validated arguments the model asked for. */
export interface PlanOperation {
  readonly callId: string;
  readonly tool: string;
  readonly input: unknown;
  readonly summary: string;
}

export type PlanState =
  | "open"
  | "pending"
  | "applying"
  | "applied"
  | "cancelled"
  | "expired"
  | "tampered"
  | "unconfirmable";

export interface StoredOperation extends PlanOperation {
  /** Toolkits that granted the tool when it was proposed: their approvers may confirm it. */
  readonly toolkits: readonly string[];
}

export interface PlanRecord {
  readonly runId: string;
  readonly agent: string;
  readonly state: PlanState;
  readonly ops: readonly StoredOperation[];
  readonly code?: string;
  readonly hash?: string;
  readonly expiresAtIso?: string;
  /** When the first operation was proposed (absent on plans written before the console's index). */
  readonly planAt?: string;
  /** Who decided it (the approver's routing key), once decided. */
  readonly decidedBy?: string;
}
