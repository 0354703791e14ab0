import type { AdminSnapshot } from "../../admin/index.ts";
import { shownDisplayName } from "../../gate/index.ts";
import type { Logger } from "../../logger.ts";
import type { RunTable, WebhookSink } from "../../ports/index.ts";
import type { LoadedRun, RunFailures, StoredMessage, TraceSink } from "../ports.ts";
import { endRun } from "./end-run.ts";

export interface RunSources {
  readonly runs: Pick<RunTable, "get" | "finish">;
  /** The run's trace: a run failed here gets its `run-finished` event like any other. */
  readonly trace: TraceSink;
  message(agent: string, id: string): Promise<StoredMessage | null>;
  loadAdmin(): Promise<AdminSnapshot>;
  readonly logger: Logger;
  /** G19: a run whose trigger is gone fails, and that failure is reported like any other. */
  readonly runFailures: RunFailures;
  /** Signed events out: the failed run's `run.failed`. */
  readonly webhooks: WebhookSink;
}

/**
 * A run as the step loop sees it: the run table's record with its trigger loaded. A reply run's sender is the
 * proven sender as verify stored it (G17), never anything the model said. A run whose trigger is gone (a deleted
 * responsibility, a lost message) ends failed rather than hanging, and reads as missing.
 */
export async function loadRun(runId: string, deps: RunSources): Promise<LoadedRun | null> {
  const run = await deps.runs.get(runId);
  if (!run) return null;
  const base = {
    runId: run.runId,
    agent: run.agent,
    kind: run.kind,
    state: run.state,
    correlationId: run.correlationId,
    createdAt: run.createdAt,
    ...(run.transcriptSaved !== undefined ? { transcriptSaved: run.transcriptSaved } : {}),
    ...(run.finishReason !== undefined ? { finishReason: run.finishReason } : {}),
    ...(run.round !== undefined ? { round: run.round } : {}),
  };
  if (run.kind === "scheduled") {
    const admin = await deps.loadAdmin();
    const responsibility = admin.responsibilities.find((r) => r.id === run.responsibilityId);
    if (!responsibility) return failMissing(run, "responsibility-missing", deps);
    return { ...base, trigger: { kind: "responsibility", responsibility }, sender: null };
  }
  const msg = run.messageId ? await deps.message(run.agent, run.messageId) : null;
  if (!msg || !run.sender) return failMissing(run, "message-missing", deps);
  return {
    ...base,
    trigger: {
      kind: "message",
      message: {
        id: msg.id,
        threadId: msg.threadId,
        subject: msg.subject,
        headerMessageId: msg.headerMessageId,
        ...(msg.addressing !== undefined ? { addressing: msg.addressing } : {}),
      },
    },
    // The proven sender as verify stored it (G17): never anything the model said.
    sender: { address: msg.from, routingKey: run.sender, displayName: shownDisplayName(msg.fromName ?? "") },
  };
}

async function failMissing(
  run: {
    readonly runId: string;
    readonly agent: string;
    readonly kind: "reply" | "scheduled";
    readonly correlationId: string;
    readonly state: string;
  },
  reason: "responsibility-missing" | "message-missing",
  deps: RunSources,
): Promise<null> {
  const { runId } = run;
  deps.logger.error("run trigger missing; run failed", { runId, reason });
  // Only a running run is failed here (and reported once): every later delivery reads it again.
  if (run.state !== "running") return null;
  // The mail is gone (or there was none): nobody to tell, and no proven address to tell it to.
  const ending = {
    runId,
    agent: run.agent,
    kind: run.kind,
    correlationId: run.correlationId,
    sender: null,
    messageId: null,
  };
  await endRun(deps, ending, { state: "failed", reason, round: 0 });
  return null;
}
