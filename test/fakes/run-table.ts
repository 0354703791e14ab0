import type { NewStoredRun, RunTable, StoredRun } from "../../shared/agent/ports.ts";
import { stored } from "./stored.ts";

/** A row as the run repository keeps it: the port's StoredRun plus the bookkeeping the console and CLI read. */
export type RunRow = StoredRun & {
  readonly round?: number;
  readonly claimedRound?: number;
  readonly finishReason?: string | null;
  readonly transcriptKey?: string;
  readonly updatedAt?: string;
};

export interface MemoryRunTable extends RunTable {
  readonly rows: Map<string, RunRow>;
  /**
   * `get <id>`, `create <id>`, `finish <id> <state> <reason>`, `noteRound <id> <round>`, `noteTranscript <id>`, in
   * order.
   */
  readonly calls: string[];
}

/**
 * The run table (RunTable, as shared/agent/wiring.ts adapts RunRepo) over a map: a conditional create, a finish
 * that applies once, a displayed round that only moves forward. Run against the real one by
 * test/contracts/run-table.contract.ts.
 */
export function memoryRunTable(
  runs: readonly StoredRun[] = [],
  opts: { now?: () => Date } = {},
): MemoryRunTable {
  const now = () => (opts.now?.() ?? new Date()).toISOString();
  const rows = new Map<string, RunRow>(runs.map((r): [string, RunRow] => [r.runId, stored(r)]));
  const calls: string[] = [];
  return {
    rows,
    calls,
    async get(runId) {
      calls.push(`get ${runId}`);
      const row = rows.get(runId);
      return row ? stored(row) : null;
    },
    async create(run: NewStoredRun) {
      calls.push(`create ${run.runId}`);
      if (rows.has(run.runId)) return { ok: false };
      const at = now();
      rows.set(
        run.runId,
        stored({
          transcriptKey: `transcripts/${run.runId}.json`,
          ...run,
          state: "running",
          round: 1,
          claimedRound: 0,
          finishReason: null,
          transcriptSaved: false,
          createdAt: at,
          updatedAt: at,
        }),
      );
      return { ok: true };
    },
    async finish(runId, state, reason) {
      calls.push(`finish ${runId} ${state} ${reason}`);
      const row = rows.get(runId);
      if (row?.state === "running")
        rows.set(runId, { ...row, state, finishReason: reason, updatedAt: now() });
    },
    async noteTranscript(runId) {
      calls.push(`noteTranscript ${runId}`);
      const row = rows.get(runId);
      if (row) rows.set(runId, { ...row, transcriptSaved: true, updatedAt: now() });
    },
    async noteRound(runId, round) {
      calls.push(`noteRound ${runId} ${round}`);
      const row = rows.get(runId);
      if (row && (row.round ?? 0) < round)
        rows.set(runId, { ...row, round, claimedRound: round, updatedAt: now() });
    },
  };
}
