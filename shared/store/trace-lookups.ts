import { STATE_KEYS } from "../config/index.ts";
import type { KeyValueState, SendSummary, TraceReader } from "../ports/index.ts";

/**
 * Reads of what a run left in the `state` table, for traces (the console's timeline): the recorded result of a
 * tool call, the send state of the mail it caused, and the day's budget counters. Key formats are the writers'
 * (agent-step's tool result cache, outbound's send state machine, the budget gate); each read is one GetItem.
 */
export class TraceLookups implements TraceReader {
  readonly #state: Pick<KeyValueState, "get">;

  constructor(state: Pick<KeyValueState, "get">) {
    this.#state = state;
  }

  /** The cached result of a tool call (`toolres#<runId>:<round>:<callId>`), or a plan operation (`plan:<runId>:<i>`). */
  async toolResult(idempotencyKey: string): Promise<{ ok: boolean; data?: unknown; reason?: string } | null> {
    const item = await this.#state.get(STATE_KEYS.toolResult(idempotencyKey), "result");
    if (!item || typeof item.result !== "string") return null;
    try {
      return JSON.parse(item.result) as { ok: boolean; data?: unknown; reason?: string };
    } catch {
      return null;
    }
  }

  /** The send state of an outbound request: its state and where it was recorded in the mailbox. */
  async send(requestId: string): Promise<SendSummary | null> {
    const item = await this.#state.get(STATE_KEYS.send(requestId), "send");
    if (!item) return null;
    const plan = (item.plan ?? {}) as Record<string, unknown>;
    const list = (v: unknown) => (Array.isArray(v) ? v.length : 0);
    return {
      requestId,
      state: String(item.state),
      agent: typeof plan.agent === "string" ? plan.agent : null,
      threadId: typeof plan.threadId === "string" ? plan.threadId : null,
      mailboxId: typeof plan.mailboxId === "string" ? plan.mailboxId : null,
      recipients: list(plan.to) + list(plan.cc) + list(plan.bcc),
      sentAt: typeof item.sentAt === "string" ? item.sentAt : null,
      reason: typeof item.reason === "string" ? item.reason : null,
      detail: typeof item.detail === "string" ? item.detail : null,
    };
  }

  /** Today's counters for an agent: runs started and tokens spent (0 when none). */
  async agentBudgetToday(agent: string, day: string): Promise<{ runs: number; tokens: number }> {
    const [runs, tokens] = await Promise.all([
      this.#state.get(STATE_KEYS.budget("runs", "agent", agent), day),
      this.#state.get(STATE_KEYS.budget("tokens", "agent", agent), day),
    ]);
    return { runs: Number(runs?.value ?? 0), tokens: Number(tokens?.value ?? 0) };
  }
}
