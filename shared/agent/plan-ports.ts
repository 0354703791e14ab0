import type { PlanRecord, PlanState, StoredOperation } from "../ports/plans.ts";

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
