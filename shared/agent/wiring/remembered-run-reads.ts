import type { RunRecord, RunTable } from "../../ports/index.ts";

/** How many runs' last reads are kept: a container works on a few runs at a time. */
const REMEMBERED_RUNS = 256;

/**
 * The run table's reads, remembered: the step reads its run each delivery; the trace's thread log needs only the
 * run's agent and thread, which never change, so it recalls the step's read instead of reading the run again.
 */
export function rememberedRunReads(runs: Pick<RunTable, "get">): {
  /** Read the run, and remember what was read. */
  read(runId: string): Promise<RunRecord | null>;
  /** The last read of the run, or a read when there was none. */
  recall(runId: string): Promise<RunRecord | null>;
} {
  const lastRead = new Map<string, RunRecord | null>();
  return {
    async read(runId) {
      const run = await runs.get(runId);
      if (lastRead.size >= REMEMBERED_RUNS) lastRead.clear();
      lastRead.set(runId, run);
      return run;
    },
    recall: async (runId) => lastRead.get(runId) ?? runs.get(runId),
  };
}
