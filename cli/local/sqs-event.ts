import type { Message } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from "aws-lambda";
import { PosternError } from "../../shared/errors.ts";

/**
 * The pure half of the local event source mapping: SQS messages → the `SQSEvent` Lambda would deliver, and a
 * handler's outcome → the messages to delete. Kept apart from the polling loop so the Lambda semantics are
 * testable without a queue.
 */

export function toSqsEvent(
  messages: readonly Message[],
  eventSourceARN: string,
  awsRegion: string,
): SQSEvent {
  return { Records: messages.map((m) => toRecord(m, eventSourceARN, awsRegion)) };
}

function toRecord(m: Message, eventSourceARN: string, awsRegion: string): SQSRecord {
  const a = m.Attributes ?? {};
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, v] of Object.entries(m.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: (v.DataType ?? "String") as SQSMessageAttributes[string]["dataType"],
      ...(v.StringValue !== undefined ? { stringValue: v.StringValue } : {}),
      ...(v.BinaryValue !== undefined ? { binaryValue: Buffer.from(v.BinaryValue).toString("base64") } : {}),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: required(m.MessageId, "MessageId"),
    receiptHandle: required(m.ReceiptHandle, "ReceiptHandle"),
    body: m.Body ?? "",
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? "1",
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? "000000000000",
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
      ...(a.MessageDeduplicationId ? { MessageDeduplicationId: a.MessageDeduplicationId } : {}),
      ...(a.SequenceNumber ? { SequenceNumber: a.SequenceNumber } : {}),
    },
    messageAttributes,
    md5OfBody: m.MD5OfBody ?? "",
    ...(m.MD5OfMessageAttributes ? { md5OfMessageAttributes: m.MD5OfMessageAttributes } : {}),
    eventSource: "aws:sqs",
    eventSourceARN,
    awsRegion,
  };
}

function required(v: string | undefined, name: string): string {
  if (!v) throw new PosternError("dependency-failed", `SQS returned a message without ${name}`);
  return v;
}

export type HandlerOutcome =
  | { readonly kind: "returned"; readonly value: SQSBatchResponse | undefined }
  | { readonly kind: "threw"; readonly error: unknown };

/**
 * Which records to delete, as Lambda decides it (ReportBatchItemFailures enabled): a throw keeps the whole
 * batch; a response lists the failures to keep; an empty, null or unknown `itemIdentifier` makes Lambda treat
 * the whole batch as failed, so a handler bug can never silently drop a message.
 */
export function recordsToDelete(event: SQSEvent, outcome: HandlerOutcome): SQSRecord[] {
  if (outcome.kind === "threw") return [];
  const failures = outcome.value?.batchItemFailures;
  if (!failures) return [...event.Records];
  const ids = new Set(event.Records.map((r) => r.messageId));
  const failed = new Set<string>();
  for (const f of failures) {
    if (typeof f?.itemIdentifier !== "string" || !ids.has(f.itemIdentifier)) return [];
    failed.add(f.itemIdentifier);
  }
  return event.Records.filter((r) => !failed.has(r.messageId));
}
