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

/** The plans (G14) as applying a confirmation needs them: a plan moves only by a conditional state change. */
export interface PlanPort {
  runForCode(code: string): Promise<{ runId: string; agent: string } | null>;
  get(runId: string): Promise<PlanRecord | null>;
  move(runId: string, from: PlanState, to: PlanState, attrs?: Record<string, unknown>): Promise<boolean>;
}

/** The plans as proposing and sealing need them too. */
export interface PlanBook extends PlanPort {
  /** Append an operation while the plan is open; once per call id. */
  add(runId: string, agent: string, op: StoredOperation): Promise<"added" | "duplicate" | "closed">;
  /** open → pending with the card's code and the hash it is bound to. */
  seal(
    runId: string,
    agent: string,
    sealed: { code: string; hash: string; expiresAtIso: string },
  ): Promise<boolean>;
}
