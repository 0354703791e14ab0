import type { AgentItem } from "../../admin/index.ts";
import { type DeploymentConfig, STATE_KEYS } from "../../config/index.ts";
import { tokensProcessed, type Usage } from "../../model/index.ts";
import { type Fail, fail, type Ok, ok } from "../../result.ts";
import type { BudgetGate, BudgetReason, BudgetResult, LoadedRun } from "../ports.ts";

/** The slice of the state repository budgets need: atomic bounded counters and once-only markers. */
export interface CounterStore {
  increment(
    pk: string,
    sk: string,
    by: number,
    opts?: { limit?: number; ttlSeconds?: number },
  ): Promise<Ok<{ value: number }> | Fail<"limit-reached", { value: number }>>;
  putIfAbsent(
    pk: string,
    sk: string,
    attrs?: Record<string, unknown>,
    ttlSeconds?: number,
  ): Promise<{ ok: boolean }>;
  /** Counters' current values in one consistent read, in the order asked (a missing counter is 0). */
  counterValues(keys: readonly { pk: string; sk: string }[]): Promise<number[]>;
}

const DAY_TTL = 3 * 24 * 3600;
const day = (now: Date) => now.toISOString().slice(0, 10);

/**
 * G10: per-agent and per-sender runs and tokens per day, checked before each model call with atomic counters
 * (the check and the add are one conditional write, so concurrent runs cannot overshoot together).
 */
export function createBudgetGate(opts: {
  counters: CounterStore;
  config: DeploymentConfig;
  now: () => Date;
  /** Sends the "budget exceeded" notice; called at most once per sender per day. */
  notify(run: LoadedRun, agent: AgentItem, reason: BudgetReason): Promise<void>;
}): BudgetGate {
  const { counters, config } = opts;
  return {
    async beforeInference(run, agent, round) {
      const d = day(opts.now());
      const c = dailyCaps(config, agent);
      // Count a run once, even when round 1 is redelivered after a crash.
      const first =
        round === 1 &&
        (await counters.putIfAbsent(STATE_KEYS.budgetRun(run.runId), "counted", {}, DAY_TTL)).ok;
      if (first) {
        const counted = await countRun(counters, run, agent, d, c);
        if (!counted.ok) return counted;
      }
      return probeTokens(counters, run, agent, d, c);
    },
    async afterInference(run, agent, usage: Usage) {
      const d = day(opts.now());
      // Every token processed, cached or not (docs/agent-runtime.md: budgets bound work; a cache read is cheaper).
      const spent = tokensProcessed(usage);
      await counters.increment(STATE_KEYS.budget("tokens", "agent", agent.address), d, spent, {
        ttlSeconds: DAY_TTL,
      });
      if (run.sender)
        await counters.increment(STATE_KEYS.budget("tokens", "sender", run.sender.routingKey), d, spent, {
          ttlSeconds: DAY_TTL,
        });
    },
    async notifyExceeded(run, agent, reason) {
      if (!run.sender) return;
      const first = await counters.putIfAbsent(
        STATE_KEYS.budgetNotice(run.sender.routingKey),
        day(opts.now()),
        { reason },
        DAY_TTL,
      );
      if (first.ok) await opts.notify(run, agent, reason);
    },
  };
}

interface DailyCaps {
  readonly agentRuns: number;
  readonly agentTokens: number;
  readonly senderRuns: number;
  readonly senderTokens: number;
}

/** The deployment's daily caps; an agent's own caps can only lower its share, never raise it. */
function dailyCaps(config: DeploymentConfig, agent: AgentItem): DailyCaps {
  return {
    agentRuns: Math.min(config.budgets.runsPerAgentPerDay, agent.runsPerDay ?? Number.POSITIVE_INFINITY),
    agentTokens: Math.min(
      config.budgets.tokensPerAgentPerDay,
      agent.tokensPerDay ?? Number.POSITIVE_INFINITY,
    ),
    senderRuns: config.budgets.runsPerSenderPerDay,
    senderTokens: config.budgets.tokensPerSenderPerDay,
  };
}

/** One atomic check-and-add on a day's counter: refused, with nothing added, when it would pass `limit`. */
async function withinCap(
  counters: CounterStore,
  pk: string,
  sk: string,
  by: number,
  limit: number,
  reason: BudgetReason,
): Promise<BudgetResult> {
  const r = await counters.increment(pk, sk, by, { limit, ttlSeconds: DAY_TTL });
  return r.ok ? ok() : fail(reason);
}

/** A new run counts against the agent's runs for the day, then its sender's. */
async function countRun(
  counters: CounterStore,
  run: LoadedRun,
  agent: AgentItem,
  d: string,
  c: DailyCaps,
): Promise<BudgetResult> {
  const a = await withinCap(
    counters,
    STATE_KEYS.budget("runs", "agent", agent.address),
    d,
    1,
    c.agentRuns,
    "agent-runs-per-day",
  );
  if (!a.ok || !run.sender) return a;
  const s = await withinCap(
    counters,
    STATE_KEYS.budget("runs", "sender", run.sender.routingKey),
    d,
    1,
    c.senderRuns,
    "sender-runs-per-day",
  );
  if (!s.ok) {
    // Give back the agent's run: a sender over their own cap must not use up the agent's day for
    // everyone else (the per-sender cap exists to isolate one noisy sender).
    await counters.increment(STATE_KEYS.budget("runs", "agent", agent.address), d, -1, {
      ttlSeconds: DAY_TTL,
    });
  }
  return s;
}

/**
 * Has the day's token spend reached a cap, the agent's, then the sender's? One consistent read of both counters,
 * not a write: the probe adds nothing, and two runs passing it together is a race no conditional update would
 * close either (neither knows the other's spend until afterInference adds it).
 */
async function probeTokens(
  counters: CounterStore,
  run: LoadedRun,
  agent: AgentItem,
  d: string,
  c: DailyCaps,
): Promise<BudgetResult> {
  const keys = [{ pk: STATE_KEYS.budget("tokens", "agent", agent.address), sk: d }];
  if (run.sender) keys.push({ pk: STATE_KEYS.budget("tokens", "sender", run.sender.routingKey), sk: d });
  const [agentSpent = 0, senderSpent = 0] = await counters.counterValues(keys);
  if (agentSpent >= c.agentTokens) return fail("agent-tokens-per-day");
  if (run.sender && senderSpent >= c.senderTokens) return fail("sender-tokens-per-day");
  return ok();
}
