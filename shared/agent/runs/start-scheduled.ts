import { createHash } from "node:crypto";
import { type AdminSnapshot, roundLimit } from "../../admin/index.ts";
import type { DeploymentConfig } from "../../config/index.ts";
import type { Logger } from "../../logger.ts";
import { firstStepOf, type StepPayload } from "../../payloads/index.ts";
import type { CreateRunResult } from "../../ports/index.ts";
import { parseSchedule } from "./schedule.ts";

export interface ScheduledRunSpec {
  readonly runId: string;
  readonly agent: string;
  readonly responsibilityId: string;
  readonly maxRounds: number;
  readonly correlationId: string;
}

export interface StartDueDeps {
  readonly config: DeploymentConfig;
  loadAdmin(): Promise<AdminSnapshot>;
  /** Conditional create: a second tick for the same due time gets `duplicate`. */
  createRun(run: ScheduledRunSpec): Promise<CreateRunResult>;
  enqueue(message: StepPayload): Promise<void>;
  readonly logger: Logger;
}

/** A tick covers the minute before it: EventBridge Scheduler and the local timer both tick once a minute. */
export const TICK_WINDOW_MS = 60_000;

/**
 * Start the runs of every responsibility due in the minute ending at `tick`. The run id is derived from the
 * responsibility and its due time, so a repeated or overlapping tick starts each run once.
 */
export async function startDueRuns(
  tick: Date,
  deps: StartDueDeps,
): Promise<{ started: string[]; invalid: string[] }> {
  const admin = await deps.loadAdmin();
  const started: string[] = [];
  const invalid: string[] = [];
  for (const r of admin.responsibilities) {
    if (!r.enabled) continue;
    const agent = admin.agents.find((a) => a.address === r.agent && a.enabled);
    if (!agent) continue;
    const schedule = parseSchedule(r.schedule);
    if (!schedule.ok) {
      deps.logger.error("responsibility schedule refused; it will not run", {
        responsibility: r.id,
        reason: schedule.reason,
      });
      invalid.push(r.id);
      continue;
    }
    const dueAt = schedule.isDue(tick, TICK_WINDOW_MS);
    if (!dueAt) continue;
    const runId = `sched-${createHash("sha256").update(`${r.id}|${dueAt.toISOString()}`).digest("hex").slice(0, 24)}`;
    const created = await deps.createRun({
      runId,
      agent: agent.address,
      responsibilityId: r.id,
      maxRounds: roundLimit(deps.config, agent),
      correlationId: `${r.id}@${dueAt.toISOString()}`,
    });
    // Enqueue even on a duplicate: the first tick may have died between create and enqueue; round 1's claim
    // absorbs the second message.
    await deps.enqueue(firstStepOf(runId));
    if (created.ok) started.push(runId);
  }
  return { started, invalid };
}
