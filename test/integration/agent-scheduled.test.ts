import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStep } from "../../shared/agent/loop/step.ts";
import { makeClients } from "../../shared/aws/clients.ts";
import { sendEmailTool } from "../../shared/tool-framework/builtin/send-email.ts";
import {
  AGENT,
  counterTool,
  counting,
  type Harness,
  scripted,
  startHarness,
} from "../helpers/agent-harness.ts";

/** Responsibilities (scheduled runs) through the real wiring: startDue → agent-step → tools (G11). */

async function receiveAll(h: Harness, queue: "agentStep" | "outbound"): Promise<Record<string, unknown>[]> {
  const sqs = makeClients(h.emulators.resources).sqs;
  const bodies: Record<string, unknown>[] = [];
  for (;;) {
    const got = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: h.emulators.resources.queues[queue],
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
      }),
    );
    if (!got.Messages?.length) return bodies;
    for (const m of got.Messages) bodies.push(JSON.parse(m.Body ?? "{}"));
  }
}

describe("scheduled runs (local stack)", () => {
  const counts = new Map<string, number>();
  const model = counting(
    scripted([
      {
        toolCalls: [
          { name: "send_email", input: { mode: "reply", body: "Here is the digest." } },
          { name: "lookup", input: {} },
          { name: "report", input: {} },
        ],
      },
      { text: "done" },
    ]),
  );
  let h: Harness;
  let runId: string;
  const tick = new Date("2026-11-29T12:00:30Z");

  beforeAll(async () => {
    h = await startHarness({
      tools: [counterTool("lookup", counts), counterTool("report", counts), sendEmailTool],
      toolkits: [
        // Usable on reply runs only (the default): a scheduled run has no proven sender to gate on.
        { id: "daytime", tools: ["lookup"] },
        { id: "nightly", tools: ["report", "send_email"], allowScheduled: true },
      ],
      model,
    });
    const put = await h.deps.stores.admin.putResponsibility({
      id: "daily-digest",
      agent: AGENT,
      schedule: "rate(1 minute)",
      prompt: "Send the team the daily digest.",
    });
    expect(put).toMatchObject({ ok: true });
  });
  afterAll(() => h?.stop());

  it("a tick starts one run per due time; a second tick in the same minute starts none", async () => {
    const first = await h.deps.startDue(tick);
    expect(first).toEqual({ started: [expect.stringMatching(/^sched-/)], invalid: [] });
    runId = first.started[0] as string;
    expect(await h.deps.startDue(new Date("2026-11-29T12:00:59Z"))).toEqual({ started: [], invalid: [] });
    // Both ticks enqueue round 1 (the first may have died before its enqueue); the round's claim absorbs one.
    const start = { runId, round: 1, fresh: true, noPlan: true, channelOpen: true };
    expect(await receiveAll(h, "agentStep")).toEqual([start, start]);
    const run = await h.deps.stores.runs.get(runId);
    expect(run).toMatchObject({
      kind: "scheduled",
      sender: null,
      messageId: null,
      responsibilityId: "daily-digest",
      state: "running",
    });
    // The next minute is another due time: another run.
    const next = await h.deps.startDue(new Date("2026-11-29T12:01:10Z"));
    expect(next.started).toHaveLength(1);
    expect(next.started[0]).not.toBe(runId);
  });

  it("runs with no sender and only the tools whose toolkit allows scheduled runs", async () => {
    expect(await runStep({ runId, round: 1 }, h.deps)).toEqual({ status: "continued", next: 2 });
    expect(await runStep({ runId, round: 1 }, h.deps)).toEqual({ status: "skipped", reason: "round-done" });
    expect(await runStep(await h.queued(runId, 2), h.deps)).toMatchObject({
      status: "finished",
      state: "completed",
    });
    expect(model.calls).toHaveLength(2);
    const request = model.calls[0];
    expect(request?.tools.map((t) => t.name)).toEqual(["report", "send_email"]);
    expect(JSON.stringify(request?.messages)).toContain("Send the team the daily digest.");

    expect(counts.get("report")).toBe(1);
    expect(counts.get("lookup")).toBeUndefined();
    const events = await h.deps.stores.runEvents.list(runId);
    const refused = events.filter((e) => e.type === "tool-refused").map((e) => e.data);
    expect(refused).toEqual([expect.objectContaining({ name: "lookup", reason: "tool-not-scheduled" })]);
  });

  it("send_email in reply mode is refused on a scheduled run: there is nothing to reply to", async () => {
    const events = await h.deps.stores.runEvents.list(runId);
    const sent = events.filter((e) => e.type === "tool-result" && e.data.name === "send_email");
    expect(sent.map((e) => e.data)).toEqual([
      expect.objectContaining({ ok: false, reason: "reply-unavailable" }),
    ]);
    const answer = model.calls[1]?.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(answer)).toContain("reply-unavailable");
    expect(await receiveAll(h, "outbound")).toEqual([]);
  });
});
