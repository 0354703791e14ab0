import { describe, expect, it } from "vitest";
import type { NewRun, RunTable } from "../../shared/ports/index.ts";
import { fresh } from "./ids.ts";

const newRun = (runId = fresh("run")): NewRun => ({
  runId,
  agent: "helpdesk@agents.example.net",
  kind: "reply",
  messageId: "m-1",
  responsibilityId: null,
  sender: "alice@example.com",
  threadId: "t-1",
  maxRounds: 4,
  correlationId: "ses-1",
});

/** The runs table (shared/ports/runs.ts RunTable), the one port: intake, the step loop, continueRun, the scheduler. */
export function runTableContract(make: () => RunTable | Promise<RunTable>): void {
  describe("RunTable", () => {
    it("creates a run once: a second create of its id is refused and changes nothing", async () => {
      const runs = await make();
      const run = newRun();
      const created = await runs.create(run);
      expect(created).toMatchObject({
        ok: true,
        run: { ...run, transcriptKey: `transcripts/${run.runId}.json` },
      });
      expect(await runs.create({ ...run, agent: "sales@agents.example.net" })).toEqual({
        ok: false,
        reason: "duplicate",
      });
      const got = await runs.get(run.runId);
      expect(got).toMatchObject({
        ...run,
        state: "running",
        round: 1,
        transcriptKey: `transcripts/${run.runId}.json`,
      });
      expect(new Date(String(got?.createdAt)).toISOString()).toBe(got?.createdAt);
    });

    it("an unknown run is null", async () => {
      expect(await (await make()).get(fresh("run"))).toBeNull();
    });

    it("finishes once: a second finish changes neither the state nor the reason", async () => {
      const runs = await make();
      const { runId } = newRun();
      await runs.create(newRun(runId));
      expect(await runs.finish(runId, "completed", "model-stopped")).toEqual({ ok: true });
      expect(await runs.finish(runId, "failed", "step-retries-exhausted")).toEqual({
        ok: false,
        reason: "not-running",
      });
      expect(await runs.get(runId)).toMatchObject({ state: "completed", finishReason: "model-stopped" });
    });

    it("the round shown only moves forward", async () => {
      const runs = await make();
      const { runId } = newRun();
      await runs.create(newRun(runId));
      await runs.noteRound(runId, 3);
      await runs.noteRound(runId, 2);
      expect(await runs.get(runId)).toMatchObject({ round: 3 });
    });

    it("a new run has no transcript; noting one says so (the step reads a transcript only then)", async () => {
      const runs = await make();
      const { runId } = newRun();
      await runs.create(newRun(runId));
      expect((await runs.get(runId))?.transcriptSaved).toBe(false);
      await runs.noteTranscript(runId);
      await runs.noteTranscript(runId);
      expect(await runs.get(runId)).toMatchObject({ transcriptSaved: true, state: "running" });
    });

    it("finishing or noting a round or a transcript of a missing run is no error and creates nothing", async () => {
      const runs = await make();
      const runId = fresh("run");
      expect(await runs.finish(runId, "failed", "agent-missing")).toEqual({ ok: false, reason: "missing" });
      await runs.noteRound(runId, 2);
      await runs.markFailure(runId, {
        class: "run-failed",
        reason: "agent-missing",
        at: "2026-01-01T00:00:00.000Z",
      });
      await runs.noteTranscript(runId);
      expect(await runs.get(runId)).toBeNull();
    });
  });
}
