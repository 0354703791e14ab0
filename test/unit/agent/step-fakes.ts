import { type AdminSnapshot, type AgentItem, agentItem } from "../../../shared/admin/schema.ts";
import type { RunEventSink, RunRecord } from "../../../shared/agent/ports.ts";
import type { NewStoredRun, RunTable, StoredRun, TraceEvent } from "../../../shared/agent/store-ports.ts";

/** Small builders and recording fakes for the agent's ports (STYLE.md §6). */

export const AGENT = "helpdesk@agents.example.net";
export const SENDER = "alice@example.com";

export function agent(extra: Partial<AgentItem> = {}): AgentItem {
  return agentItem.parse({ address: AGENT, name: "Helpdesk", model: "demo", ...extra });
}

export function admin(extra: Partial<AdminSnapshot> = {}): AdminSnapshot {
  return { agents: [agent()], accessRules: [], toolkits: [], responsibilities: [], approvers: [], ...extra };
}

export function replyRun(extra: Partial<RunRecord> = {}): RunRecord {
  return {
    runId: "run-1",
    agent: AGENT,
    kind: "reply",
    state: "running",
    correlationId: "ses-1",
    createdAt: "2026-11-29T12:00:00.000Z",
    trigger: {
      kind: "message",
      message: { id: "msg-1", threadId: "t-1", subject: "Order 1234", headerMessageId: "m1@example.com" },
    },
    sender: { address: SENDER, routingKey: SENDER, displayName: "Alice" },
    ...extra,
  };
}

export function storedRun(extra: Partial<StoredRun> = {}): StoredRun {
  return {
    runId: "run-1",
    agent: AGENT,
    kind: "reply",
    state: "running",
    messageId: "msg-1",
    responsibilityId: null,
    sender: SENDER,
    threadId: "t-1",
    maxRounds: 8,
    correlationId: "ses-1",
    createdAt: "2026-11-29T12:00:00.000Z",
    ...extra,
  };
}

/** A run table over a map, with the repository's conditional create and once-only finish. */
export function memoryRunTable(runs: readonly StoredRun[] = []): RunTable & {
  readonly rows: Map<string, StoredRun & { finishReason?: string }>;
  readonly calls: string[];
} {
  const rows = new Map<string, StoredRun & { finishReason?: string }>(runs.map((r) => [r.runId, r]));
  const calls: string[] = [];
  return {
    rows,
    calls,
    async get(runId) {
      calls.push(`get ${runId}`);
      return rows.get(runId) ?? null;
    },
    async create(run: NewStoredRun) {
      calls.push(`create ${run.runId}`);
      if (rows.has(run.runId)) return { ok: false };
      rows.set(run.runId, { ...run, state: "running", createdAt: "2026-11-29T12:00:00.000Z" });
      return { ok: true };
    },
    async finish(runId, state, reason) {
      calls.push(`finish ${runId} ${state} ${reason}`);
      const row = rows.get(runId);
      if (row?.state === "running") rows.set(runId, { ...row, state, finishReason: reason });
    },
    async noteRound(runId, round) {
      calls.push(`noteRound ${runId} ${round}`);
    },
  };
}

/** A run event sink that keeps what it was given. */
export function recordingSink(): RunEventSink & {
  readonly events: (Omit<TraceEvent, "at"> & { runId: string })[];
} {
  const events: (Omit<TraceEvent, "at"> & { runId: string })[] = [];
  return {
    events,
    async append(runId, event) {
      events.push({ runId, ...event });
    },
  };
}
