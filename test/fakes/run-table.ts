import type { StoredRun } from "../../shared/agent/ports.ts";
import type { NewRun, RunRecord, RunTable } from "../../shared/ports/index.ts";
import { fail, ok } from "../../shared/result.ts";
import { stored } from "./stored.ts";

export interface MemoryRunTable extends RunTable {
  readonly rows: Map<string, RunRecord>;
  /**
   * `get <id>`, `create <id>`, `finish <id> <state> <reason>`, `noteRound <id> <round>`, `noteTranscript <id>`, in
   * order.
   */
  readonly calls: string[];
}

/** A seeded run as the repository would keep it: the bookkeeping a test does not name, filled in. */
function row(run: StoredRun | RunRecord): RunRecord {
  return stored({
    round: 1,
    claimedRound: 0,
    finishReason: null,
    transcriptKey: `transcripts/${run.runId}.json`,
    updatedAt: run.createdAt,
    ...run,
  } as RunRecord);
}

/**
 * The runs table (shared/ports/runs.ts RunTable) over a map: a conditional create, a finish that applies once, a
 * displayed round that only moves forward. Run against the real one by test/contracts/run-table.contract.ts.
 */
export function memoryRunTable(
  runs: readonly StoredRun[] = [],
  opts: { now?: () => Date } = {},
): MemoryRunTable {
  const now = () => (opts.now?.() ?? new Date()).toISOString();
  const rows = new Map<string, RunRecord>(runs.map((r): [string, RunRecord] => [r.runId, row(r)]));
  const calls: string[] = [];
  return {
    rows,
    calls,
    async get(runId) {
      calls.push(`get ${runId}`);
      const r = rows.get(runId);
      return r ? stored(r) : null;
    },
    async create(run: NewRun) {
      calls.push(`create ${run.runId}`);
      if (rows.has(run.runId)) return fail("duplicate");
      const at = run.createdAt ?? now();
      const created = stored({
        ...run,
        transcriptKey: `transcripts/${run.runId}.json`,
        state: "running",
        round: 1,
        claimedRound: 0,
        finishReason: null,
        transcriptSaved: false,
        createdAt: at,
        updatedAt: at,
      } satisfies RunRecord);
      rows.set(run.runId, created);
      return ok({ run: stored(created) });
    },
    async finish(runId, state, reason) {
      calls.push(`finish ${runId} ${state} ${reason}`);
      const r = rows.get(runId);
      if (!r) return fail("missing");
      if (r.state !== "running") return fail("not-running");
      rows.set(runId, { ...r, state, finishReason: reason, updatedAt: now() });
      return ok();
    },
    async noteTranscript(runId) {
      calls.push(`noteTranscript ${runId}`);
      const r = rows.get(runId);
      if (r) rows.set(runId, { ...r, transcriptSaved: true, updatedAt: now() });
    },
    async noteRound(runId, round) {
      calls.push(`noteRound ${runId} ${round}`);
      const r = rows.get(runId);
      if (r && r.round < round) rows.set(runId, { ...r, round, claimedRound: round, updatedAt: now() });
    },
    async markFailure(runId, mark) {
      const r = rows.get(runId);
      if (r) rows.set(runId, { ...r, failure: mark, failureCount: (r.failureCount ?? 0) + 1 });
    },
  };
}
