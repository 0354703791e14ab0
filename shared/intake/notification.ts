import * as z from "zod";
import { PREFIXES } from "../config/index.ts";
import { type Fail, fail, type Ok } from "../result.ts";

/**
 * The SES receipt notification as it reaches the verify queue: raw (SNS raw message delivery) or inside an SNS
 * envelope. Only the envelope fields are read — recipients, MAIL FROM, message id, where the raw mail is — because
 * headers are the sender's words, and the gate re-reads the raw bytes itself.
 */
const sesNotification = z.object({
  notificationType: z.literal("Received"),
  mail: z.object({
    timestamp: z.string(),
    source: z.string(),
    messageId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, "unexpected SES message id"),
  }),
  receipt: z.object({
    recipients: z.array(z.string().min(3).max(320)).min(1).max(100),
    virusVerdict: z.object({ status: z.string() }).optional(),
    action: z.object({
      type: z.literal("S3"),
      bucketName: z.string(),
      objectKey: z.string(),
    }),
  }),
});

const snsEnvelope = z.object({ Type: z.literal("Notification"), Message: z.string() });

/**
 * What SES sends once when a receipt rule's S3 action with a topic is created: a notification of this type on the
 * topic (the rule works; there is no mail), and a setup object named below under the action's prefix. Neither is
 * mail: verify records them and moves on, instead of failing them into the DLQ and paging the operator.
 */
const SETUP_NOTIFICATION = z.object({ notificationType: z.literal("AmazonSnsSubscriptionSucceeded") });
export const SES_SETUP_OBJECT = "AMAZON_SES_SETUP_NOTIFICATION";

export interface InboundEvent {
  readonly sesMessageId: string;
  readonly recipients: readonly string[];
  /** MAIL FROM; "" for the null reverse-path. */
  readonly mailFrom: string;
  readonly receivedAt: string;
  readonly bucket: string;
  readonly objectKey: string;
  readonly virusVerdict: string | null;
}

/** Not a usable notification: retrying cannot fix it (it goes to the DLQ). `detail` names the invalid fields. */
export type NotificationReason =
  | "notification-not-json"
  | "notification-invalid"
  | "notification-foreign-object";

export type NotificationResult =
  | Ok<{ readonly event: InboundEvent }>
  /** SES's setup notice, not mail: acknowledged, never retried. */
  | Ok<{ readonly event: null; readonly setup: "ses-setup-notification" }>
  | Fail<NotificationReason>;

const SETUP: NotificationResult = { ok: true, event: null, setup: "ses-setup-notification" };

export function parseNotification(body: string, expectedBucket: string): NotificationResult {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return fail("notification-not-json");
  }
  const wrapped = snsEnvelope.safeParse(json);
  if (wrapped.success) {
    try {
      json = JSON.parse(wrapped.data.Message);
    } catch {
      return fail("notification-not-json");
    }
  }
  if (SETUP_NOTIFICATION.safeParse(json).success) return SETUP;
  const parsed = sesNotification.safeParse(json);
  if (!parsed.success) {
    return fail("notification-invalid", parsed.error.issues.map((i) => i.path.join(".")).join(", "));
  }
  const n = parsed.data;
  // Only our own bucket and prefix: a forged notification must not make verify read (and show) other objects.
  if (
    n.receipt.action.bucketName !== expectedBucket ||
    !n.receipt.action.objectKey.startsWith(PREFIXES.inbound)
  ) {
    return fail("notification-foreign-object");
  }
  if (n.receipt.action.objectKey === `${PREFIXES.inbound}${SES_SETUP_OBJECT}`) return SETUP;
  return {
    ok: true,
    event: {
      sesMessageId: n.mail.messageId,
      recipients: n.receipt.recipients,
      mailFrom: n.mail.source,
      receivedAt: n.mail.timestamp,
      bucket: n.receipt.action.bucketName,
      objectKey: n.receipt.action.objectKey,
      virusVerdict: n.receipt.virusVerdict?.status ?? null,
    },
  };
}
