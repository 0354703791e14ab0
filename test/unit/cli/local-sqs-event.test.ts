import type { SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { recordsToDelete, toSqsEvent } from "../../../cli/local/sqs-event.ts";

const ARN = "arn:aws:sqs:us-east-1:000000000000:q";
const event: SQSEvent = toSqsEvent(
  ["a", "b", "c"].map((id) => ({
    MessageId: id,
    ReceiptHandle: `rh-${id}`,
    Body: `body-${id}`,
    MD5OfBody: "md5",
    Attributes: {
      ApproximateReceiveCount: "2",
      SentTimestamp: "1",
      SenderId: "s",
      ApproximateFirstReceiveTimestamp: "1",
    },
    MessageAttributes: { kind: { DataType: "String", StringValue: "x" } },
  })),
  ARN,
  "us-east-1",
);
const ids = (records: { messageId: string }[]) => records.map((r) => r.messageId);

describe("toSqsEvent", () => {
  it("builds Lambda's record shape", () => {
    expect(event.Records[0]).toEqual({
      messageId: "a",
      receiptHandle: "rh-a",
      body: "body-a",
      attributes: {
        ApproximateReceiveCount: "2",
        SentTimestamp: "1",
        SenderId: "s",
        ApproximateFirstReceiveTimestamp: "1",
      },
      messageAttributes: {
        kind: { dataType: "String", stringValue: "x", stringListValues: [], binaryListValues: [] },
      },
      md5OfBody: "md5",
      eventSource: "aws:sqs",
      eventSourceARN: ARN,
      awsRegion: "us-east-1",
    });
  });
});

describe("recordsToDelete (Lambda ReportBatchItemFailures semantics)", () => {
  it("deletes everything when the handler returns nothing or no failures", () => {
    expect(ids(recordsToDelete(event, { kind: "returned", value: undefined }))).toEqual(["a", "b", "c"]);
    expect(ids(recordsToDelete(event, { kind: "returned", value: { batchItemFailures: [] } }))).toEqual([
      "a",
      "b",
      "c",
    ]);
  });
  it("keeps the whole batch when the handler throws", () => {
    expect(recordsToDelete(event, { kind: "threw", error: new Error("x") })).toEqual([]);
  });
  it("keeps only the listed failures", () => {
    const r = recordsToDelete(event, {
      kind: "returned",
      value: { batchItemFailures: [{ itemIdentifier: "b" }] },
    });
    expect(ids(r)).toEqual(["a", "c"]);
  });
  it("keeps the whole batch when a failure names an unknown or empty id", () => {
    for (const itemIdentifier of ["zzz", ""]) {
      const r = recordsToDelete(event, {
        kind: "returned",
        value: { batchItemFailures: [{ itemIdentifier }] },
      });
      expect(r).toEqual([]);
    }
    const malformed = { batchItemFailures: [null] } as unknown as {
      batchItemFailures: { itemIdentifier: string }[];
    };
    expect(recordsToDelete(event, { kind: "returned", value: malformed })).toEqual([]);
  });
});
