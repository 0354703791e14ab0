import type { RoundClaim, RoundLedger } from "../../shared/agent/ports.ts";

interface Entry {
  readonly state: "new" | "done";
  readonly leaseUntil?: number;
}

export interface MemoryRoundLedger extends RoundLedger {
  /** By `runId#round`. */
  readonly entries: Map<string, Entry>;
  /** `claim run-1#1 → claimed`, `markDone run-1#1`, `release run-1#1`, in order. */
  readonly calls: string[];
}

/**
 * The round ledger (DynamoRoundLedger) over a map: a claim holds a lease; a claim while the lease runs is busy, a
 * claim after it takes over; done is final. `markDone` records done even for a round never claimed, as the
 * adapter's unconditional update does. Run against the real one by test/contracts/round-ledger.contract.ts.
 */
export function memoryRoundLedger(opts: { now?: () => number } = {}): MemoryRoundLedger {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const calls: string[] = [];
  const claim = (key: string, leaseMs: number): RoundClaim => {
    const current = entries.get(key);
    const t = now();
    if (current?.state === "done") return { status: "done" };
    if (current && typeof current.leaseUntil === "number" && current.leaseUntil > t)
      return { status: "busy" };
    entries.set(key, { state: "new", leaseUntil: t + leaseMs });
    return { status: "claimed", first: current === undefined };
  };
  return {
    entries,
    calls,
    async claim(runId, round, leaseMs) {
      const result = claim(`${runId}#${round}`, leaseMs);
      calls.push(`claim ${runId}#${round} → ${result.status}`);
      return result;
    },
    async markDone(runId, round) {
      calls.push(`markDone ${runId}#${round}`);
      entries.set(`${runId}#${round}`, { ...entries.get(`${runId}#${round}`), state: "done" });
    },
    async release(runId, round) {
      calls.push(`release ${runId}#${round}`);
      const current = entries.get(`${runId}#${round}`);
      if (current && current.state !== "done")
        entries.set(`${runId}#${round}`, { ...current, leaseUntil: 0 });
    },
  };
}
