import type { SQSEvent } from "aws-lambda";
import { afterEach, describe, expect, it } from "vitest";
import { agentStepSqsHandler } from "../../shared/agent/sqs-handler.ts";
import { type Harness, startHarness } from "../helpers/agent-harness.ts";
import { quietLogger } from "../helpers/pipeline-stack.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const event = (body: unknown, receives: number): SQSEvent => ({
  Records: [
    {
      messageId: "m1",
      receiptHandle: "r",
      body: JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: String(receives),
        SentTimestamp: "0",
        SenderId: "x",
        ApproximateFirstReceiveTimestamp: "0",
      },
      messageAttributes: {},
      md5OfBody: "",
      eventSource: "aws:sqs",
      eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:postern-agent-step",
      awsRegion: "us-east-1",
    },
  ],
});

describe("agent-step handler", () => {
  it("a retryable model failure on the last delivery ends the run failed with the model's reason", async () => {
    const throttled = {
      name: "demo",
      capabilities: { supportsImages: false, supportsDocuments: false },
      generate: async () => ({
        ok: false as const,
        reason: "model-throttled" as const,
        detail: "429",
        retryable: true,
      }),
    };
    h = await startHarness({ tools: [], toolkits: [], model: throttled });
    const runId = await h.startReplyRun();
    const handler = agentStepSqsHandler(h.deps, { logger: quietLogger(), maxReceives: 3 });
    expect(await handler(event({ runId, round: 1 }, 1))).toEqual({
      batchItemFailures: [{ itemIdentifier: "m1" }],
    });
    expect((await h.deps.stores.runs.get(runId))?.state).toBe("running");
    // The last delivery: nothing will retry, so the run ends now, with the model's own reason, and the failure is
    // reported (G19) instead of the message going to the DLQ to be marked step-retries-exhausted.
    expect(await handler(event({ runId, round: 1 }, 3))).toEqual({ batchItemFailures: [] });
    const run = await h.deps.stores.runs.get(runId);
    expect(run).toMatchObject({ state: "failed", finishReason: "model-throttled" });
    expect(run?.failure).toMatchObject({ class: "run-failed", reason: "model-throttled" });
  });

  it("a step that throws on its last delivery ends the run failed instead of leaving it running", async () => {
    const broken = {
      name: "demo",
      capabilities: { supportsImages: false, supportsDocuments: false },
      generate: async (): Promise<never> => {
        throw new Error("a bug in the adapter");
      },
    };
    h = await startHarness({ tools: [], toolkits: [], model: broken });
    const runId = await h.startReplyRun();
    const handler = agentStepSqsHandler(h.deps, { logger: quietLogger(), maxReceives: 3 });
    expect(await handler(event({ runId, round: 1 }, 3))).toEqual({
      batchItemFailures: [{ itemIdentifier: "m1" }],
    });
    const run = await h.deps.stores.runs.get(runId);
    expect(run).toMatchObject({ state: "failed", finishReason: "step-retries-exhausted" });
    expect(run?.failure).toMatchObject({ class: "run-failed", reason: "step-retries-exhausted" });
  });

  it("an unusable message is failed to the DLQ, not thrown", async () => {
    h = await startHarness({
      tools: [],
      toolkits: [],
      model: {
        name: "x",
        capabilities: { supportsImages: false, supportsDocuments: false },
        generate: async () => {
          throw new Error("unreachable");
        },
      },
    });
    expect(
      await agentStepSqsHandler(h.deps, { logger: quietLogger(), maxReceives: 3 })(event({ hello: 1 }, 1)),
    ).toEqual({
      batchItemFailures: [{ itemIdentifier: "m1" }],
    });
  });
});
