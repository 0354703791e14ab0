import { describe, expect, it } from "vitest";
import type { ActivityEntry } from "../../../shared/agent/ports.ts";
import { createTraceSink } from "../../../shared/agent/runs/trace-sink.ts";
import { AGENT, storedRun } from "../../fakes/builders.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { memoryRunEventLog } from "../../fakes/run-event-log.ts";
import { memoryRunTable } from "../../fakes/run-table.ts";

const NOW = new Date("2026-11-29T12:00:00Z");

function sink(runs = memoryRunTable([storedRun()])) {
  const log = memoryRunEventLog();
  const recorded: (ActivityEntry & { agent: string; threadId: string; callId: string })[] = [];
  const logger = recordingLogger();
  const events = createTraceSink({
    log,
    runs,
    activity: {
      record: async (agent, threadId, callId, e) => void recorded.push({ agent, threadId, callId, ...e }),
    },
    now: () => NOW,
    logger,
  });
  return { events, log, recorded, logger };
}

describe("the run's trace", () => {
  it("stamps each event with the time", async () => {
    const s = sink();
    await s.events.append("run-1", { type: "model-request", round: 1, data: { messages: 1 } });
    expect(s.log.events).toEqual([
      {
        runId: "run-1",
        seq: 1,
        type: "model-request",
        round: 1,
        data: { messages: 1 },
        at: NOW.toISOString(),
      },
    ]);
  });

  it("an event too large to store leaves a marker in its place and an error in the log", async () => {
    const s = sink();
    await s.events.append("run-1", { type: "model-turn", round: 2, data: { text: "x".repeat(40_000) } });
    expect(s.log.events).toEqual([
      {
        runId: "run-1",
        seq: 1,
        type: "model-turn",
        round: 2,
        at: NOW.toISOString(),
        data: { truncated: true },
      },
    ]);
    expect(s.logger.lines).toEqual([
      {
        level: "error",
        message: "run event not recorded",
        extra: { runId: "run-1", type: "model-turn", reason: "too-large" },
      },
    ]);
  });

  it("a tool result is also kept in the thread's activity; a threadless run keeps none", async () => {
    const s = sink();
    const data = { callId: "c1", name: "lookup", ok: false, reason: "tool-error" };
    await s.events.append("run-1", { type: "tool-result", round: 1, data });
    expect(s.recorded).toEqual([
      {
        agent: AGENT,
        threadId: "t-1",
        callId: "c1",
        at: NOW.toISOString(),
        runId: "run-1",
        tool: "lookup",
        ok: false,
        reason: "tool-error",
      },
    ]);
    const threadless = sink(memoryRunTable([storedRun({ threadId: null })]));
    await threadless.events.append("run-1", { type: "tool-result", round: 1, data });
    expect(threadless.recorded).toEqual([]);
    expect(threadless.log.events).toHaveLength(1);
  });
});
