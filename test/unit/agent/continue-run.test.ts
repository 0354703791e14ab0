import { describe, expect, it } from "vitest";
import { MAX_RESULT_TEXT_BYTES } from "../../../shared/agent/loop/tool-result.ts";
import type { OpResult } from "../../../shared/agent/plans/apply-plan.ts";
import type { Transcript } from "../../../shared/agent/ports.ts";
import { continuationTranscript, continueRun } from "../../../shared/agent/runs/continue-run.ts";
import type { StepPayload } from "../../../shared/payloads/agent-step.ts";
import { success, toolFailure } from "../../../shared/tool-framework/tool.ts";
import { agent, replyRun, storedRun } from "../../fakes/builders.ts";
import { memoryRunTable } from "../../fakes/run-table.ts";

const original: Transcript = {
  system: "Help.",
  messages: [
    { role: "user", content: [{ type: "text", text: "Refund order 1234" }] },
    { role: "assistant", text: "", toolCalls: [] },
  ],
  lastRound: 2,
  untrustedText: "refund order 1234",
};
const results: OpResult[] = [
  { number: 1, tool: "refund", summary: "Refund: 1234", result: success({ refunded: 12 }) },
  { number: 2, tool: "notify", summary: "Notify", result: toolFailure("tool-error", "down") },
  { number: 3, tool: "close", summary: "Close", result: null },
];

describe("continuing a run after its approved plan ran (G14)", () => {
  it("the transcript gains one engine-written turn with each operation's outcome, and restarts at round 1", () => {
    const t = continuationTranscript(original, "Plan outcome: failed (tool-error).", results);
    expect(t.messages.slice(0, 2)).toEqual(original.messages);
    expect(t).toMatchObject({ system: "Help.", untrustedText: "refund order 1234", lastRound: 0 });
    expect(t.messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "text",
          // The engine's outcome line, never a fixed "applied": each operation numbered as on the card, those
          // never run included, a failure with its reason and the tool's own message.
          text: `Plan outcome: failed (tool-error).\nResults:\n${JSON.stringify([
            {
              operation: 1,
              tool: "refund",
              summary: "Refund: 1234",
              status: "ok",
              data: { refunded: 12 },
            },
            {
              operation: 2,
              tool: "notify",
              summary: "Notify",
              status: "failed",
              error: "tool-error",
              message: "down",
            },
            { operation: 3, tool: "close", summary: "Close", status: "not-run" },
          ])}`,
        },
      ],
    });
  });

  it("creates `<run>-applied` like the original once, and enqueues its round 1 on every call", async () => {
    const runs = memoryRunTable([storedRun({ maxRounds: 5 })]);
    const saved = new Map<string, Transcript>([["run-1", original]]);
    const enqueued: StepPayload[] = [];
    const go = continueRun({
      transcripts: {
        load: async (id) => saved.get(id) ?? null,
        save: async (id, t) => void saved.set(id, t),
      },
      runs,
      enqueue: async (m) => void enqueued.push(m),
    });
    await go(replyRun(), agent(), "Approved.", results);
    saved.set("run-1-applied", original); // a redelivery must not overwrite the continuation's progress
    await go(replyRun(), agent(), "Approved.", results);
    expect(runs.rows.get("run-1-applied")).toMatchObject({
      kind: "reply",
      sender: "alice@example.com",
      threadId: "t-1",
      maxRounds: 5,
    });
    expect(saved.get("run-1-applied")).toBe(original);
    expect(enqueued).toEqual([
      { runId: "run-1-applied", round: 1 },
      { runId: "run-1-applied", round: 1 },
    ]);
  });

  it("notes the continuation's transcript on its run; a redelivery after a crash before the note saves it", async () => {
    const runs = memoryRunTable([storedRun()]);
    const saved = new Map<string, Transcript>([["run-1", original]]);
    let crash = true;
    const go = continueRun({
      transcripts: {
        load: async (id) => saved.get(id) ?? null,
        save: async (id, t) => {
          if (crash) throw new Error("S3 down");
          saved.set(id, t);
        },
      },
      runs,
      enqueue: async () => undefined,
    });
    await expect(go(replyRun(), agent(), "Approved.", results)).rejects.toThrow("S3 down");
    expect(runs.rows.get("run-1-applied")?.transcriptSaved).toBe(false);
    crash = false;
    await go(replyRun(), agent(), "Approved.", results);
    expect(runs.rows.get("run-1-applied")?.transcriptSaved).toBe(true);
    expect(saved.get("run-1-applied")?.messages).toHaveLength(3);
  });

  it("an original run whose item says it saved no transcript is not read from the store", async () => {
    const enqueued: StepPayload[] = [];
    const runs = memoryRunTable([]);
    await runs.create({ ...storedRun(), runId: "run-1" });
    await continueRun({
      transcripts: {
        load: async () => {
          throw new Error("read a transcript never written");
        },
        save: async () => undefined,
      },
      runs,
      enqueue: async (m) => void enqueued.push(m),
    })(replyRun(), agent(), "Approved.", results);
    expect(enqueued).toEqual([]);
  });

  it("without the original transcript or run, nothing is continued", async () => {
    const enqueued: StepPayload[] = [];
    await continueRun({
      transcripts: { load: async () => null, save: async () => undefined },
      runs: memoryRunTable([storedRun()]),
      enqueue: async (m) => void enqueued.push(m),
    })(replyRun(), agent(), "Approved.", results);
    expect(enqueued).toEqual([]);
  });
});

describe("an applied operation's result in the continued transcript", () => {
  it("is capped like a tool result in the loop", () => {
    const big: OpResult[] = [
      { number: 1, tool: "export", summary: "Export", result: success({ rows: "r".repeat(500_000) }) },
    ];
    const t = continuationTranscript(original, "Approved.", big);
    const last = t.messages[2];
    const text = last?.role === "user" ? (last.content[0]?.text ?? "") : "";
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_RESULT_TEXT_BYTES + 1_000);
    expect(text).toContain("characters not shown]");
  });
});
