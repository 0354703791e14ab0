// The SES receipt notification as verify reads it, and SES's one-off setup notices, which are not mail.

import type { SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { parseNotification, SES_SETUP_OBJECT } from "../../../shared/intake/notification.ts";
import type { VerifyDeps } from "../../../shared/intake/process.ts";
import { verifySqsHandler } from "../../../shared/intake/sqs-handler.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";

const BUCKET = "postern-mail";
const received = (objectKey = "inbound/abc123") => ({
  notificationType: "Received",
  mail: { timestamp: "2026-11-30T10:00:00.000Z", source: "carol@customer.example", messageId: "abc123" },
  receipt: {
    recipients: ["helpdesk@agents.example.com"],
    virusVerdict: { status: "PASS" },
    action: { type: "S3", topicArn: "arn:aws:sns:eu-west-1:111111111111:t", bucketName: BUCKET, objectKey },
  },
});
// What SES publishes on the topic when the rule's S3 action is created.
const SETUP = {
  notificationType: "AmazonSnsSubscriptionSucceeded",
  message:
    "You have successfully subscribed your Amazon SNS topic 'arn:aws:sns:eu-west-1:111111111111:t' to receive 'Received' notifications from Amazon SES.",
};
const sns = (message: unknown) => JSON.stringify({ Type: "Notification", Message: JSON.stringify(message) });

describe("parseNotification", () => {
  it("reads the envelope of a Received notification, raw or inside SNS's envelope", () => {
    for (const body of [JSON.stringify(received()), sns(received())])
      expect(parseNotification(body, BUCKET)).toMatchObject({
        ok: true,
        event: {
          sesMessageId: "abc123",
          recipients: ["helpdesk@agents.example.com"],
          objectKey: "inbound/abc123",
        },
      });
  });

  it("recognises SES's setup notice and its setup object, which are not mail", () => {
    const setup = { ok: true, event: null, setup: "ses-setup-notification" };
    expect(parseNotification(JSON.stringify(SETUP), BUCKET)).toEqual(setup);
    expect(parseNotification(sns(SETUP), BUCKET)).toEqual(setup);
    const setupObject = received(`inbound/${SES_SETUP_OBJECT}`);
    expect(parseNotification(JSON.stringify(setupObject), BUCKET)).toEqual(setup);
  });

  it("refuses another bucket or prefix, and anything else", () => {
    expect(parseNotification(JSON.stringify(received("mail/x")), BUCKET)).toEqual({
      ok: false,
      reason: "notification-foreign-object",
    });
    expect(parseNotification("{", BUCKET)).toEqual({ ok: false, reason: "notification-not-json" });
    expect(parseNotification(JSON.stringify({ notificationType: "Bounce" }), BUCKET)).toMatchObject({
      ok: false,
      reason: "notification-invalid",
      detail: expect.stringContaining("notificationType"),
    });
  });
});

describe("the verify SQS handler", () => {
  const logger = recordingLogger();
  const event = (...bodies: string[]): SQSEvent =>
    ({ Records: bodies.map((body, i) => ({ messageId: `m${i}`, body })) }) as unknown as SQSEvent;

  it("acknowledges the setup notice (no DLQ, no alarm) and fails only what it cannot use", async () => {
    const handler = verifySqsHandler({} as VerifyDeps, { logger, bucket: BUCKET });
    const out = await handler(event(sns(SETUP), "not json"));
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: "m1" }]);
    expect(logger.text({ fields: false })).toContain("info SES setup notification acknowledged");
  });
});
