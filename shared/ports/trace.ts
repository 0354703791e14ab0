// Ports: what a run left in the `state` table, read back for its trace (the console's timeline):
// shared/store/trace-lookups.ts reads it with the writers' key formats.

/** An outbound request's send state, as a trace shows it. */
export interface SendSummary {
  readonly requestId: string;
  readonly state: string;
  readonly agent: string | null;
  readonly threadId: string | null;
  readonly mailboxId: string | null;
  readonly recipients: number;
  readonly sentAt: string | null;
  /** Why it ended `failed` or `unknown` (docs/reasons.md); null otherwise. */
  readonly reason: string | null;
  /** SES's own message, or the engine's detail, for a failed send. */
  readonly detail: string | null;
}

export interface TraceReader {
  /** The recorded result of a tool call or a plan operation, by its idempotency key; null when none. */
  toolResult(idempotencyKey: string): Promise<{ ok: boolean; data?: unknown; reason?: string } | null>;
  /** The send state of an outbound request; null when none. */
  send(requestId: string): Promise<SendSummary | null>;
  /** An agent's counters for one UTC day: runs started and tokens spent (0 when none). */
  agentBudgetToday(agent: string, day: string): Promise<{ runs: number; tokens: number }>;
}
