import type { SQSEvent, SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { outboundSqsHandler } from "../../../shared/outbound/sqs-handler.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { HELPDESK, INBOUND, recordingSes, world } from "./fakes.ts";

const record = (messageId: string, body: unknown): SQSRecord =>
  ({ messageId, body: typeof body === "string" ? body : JSON.stringify(body) }) as SQSRecord;

const request = (requestId: string) => ({
  requestId,
  agent: HELPDESK.address,
  mode: "reply",
  replyTo: { messageId: INBOUND.id },
  to: [],
  cc: [],
  bcc: [],
  body: "hi",
  attachmentIds: [],
  correlationId: "c",
});

const keyed = recordingLogger;

describe("outboundSqsHandler", () => {
  it("fails malformed records, retries and throws; succeeds sends and permanent refusals", async () => {
    const w = world();
    const throttled = world(
      {},
      recordingSes(() => ({ kind: "rejected", retryable: true, code: "TooManyRequestsException" })),
    );
    const handler = outboundSqsHandler(w.deps, { logger: keyed() });
    const event: SQSEvent = {
      Records: [
        record("ok", request("r-ok")),
        record("not-json", "{"),
        record("bad-shape", { ...request("r-bad"), mode: "shout" }),
        record("refused", { ...request("r-refused"), subject: "model subject" }),
      ],
    };
    expect(await handler(event)).toEqual({
      batchItemFailures: [{ itemIdentifier: "not-json" }, { itemIdentifier: "bad-shape" }],
    });
    expect(
      await outboundSqsHandler(throttled.deps, { logger: keyed() })({
        Records: [record("t", request("r-t"))],
      }),
    ).toEqual({
      batchItemFailures: [{ itemIdentifier: "t" }],
    });
    const crashing = world({
      state: { ...w.deps.state, claim: async () => Promise.reject(new Error("dynamo down")) },
    });
    expect(
      await outboundSqsHandler(crashing.deps, { logger: keyed() })({
        Records: [record("x", request("r-x"))],
      }),
    ).toEqual({
      batchItemFailures: [{ itemIdentifier: "x" }],
    });
  });
});
