import * as z from "zod";
import type { SendOutcome, SendOutcomeKind, SendOutcomeRecipient } from "../ports/index.ts";
import { type Fail, fail, type Ok } from "../result.ts";
import type { DeliveryEventsDeps } from "./ports.ts";

/**
 * SES event publishing records for a configuration set (SES Developer Guide, "Contents of event data that Amazon SES
 * publishes to Amazon SNS"; EventBridge delivers the same record as an event's `detail`): the four kinds Postern
 * records, each with the fields it reads. Everything else in a record is passed over.
 */
const recipient = z.object({
  emailAddress: z.string().min(1).max(320),
  status: z.string().max(32).optional(),
  diagnosticCode: z.string().optional(),
});
const mail = z.object({
  timestamp: z.string().min(1),
  messageId: z.string().min(1).max(200),
  source: z.string().optional(),
  commonHeaders: z.object({ from: z.array(z.string()).optional() }).optional(),
});
const record = z.discriminatedUnion("eventType", [
  z.object({
    eventType: z.literal("Bounce"),
    mail,
    bounce: z.object({
      bounceType: z.string(),
      bounceSubType: z.string(),
      bouncedRecipients: z.array(recipient),
      timestamp: z.string(),
    }),
  }),
  z.object({
    eventType: z.literal("Complaint"),
    mail,
    complaint: z.object({
      complainedRecipients: z.array(recipient).optional(),
      complaintFeedbackType: z.string().optional(),
      complaintSubType: z.string().nullable().optional(),
      timestamp: z.string(),
    }),
  }),
  z.object({ eventType: z.literal("Reject"), mail, reject: z.object({ reason: z.string() }) }),
  z.object({
    eventType: z.literal("DeliveryDelay"),
    mail,
    deliveryDelay: z.object({
      delayType: z.string(),
      delayedRecipients: z.array(recipient).optional(),
      timestamp: z.string(),
    }),
  }),
]);
type SesRecord = z.infer<typeof record>;

/** What a record was, when it is not one to record. */
export type SendOutcomeRefusal = "not-json" | "not-recorded-type" | "malformed" | "no-sender";

/** Remote servers write the diagnostics: kept short, as plain text (the console escapes it). */
const MAX_DIAGNOSTIC = 500;

/**
 * An SQS body as the delivery-events queue receives it: an EventBridge event whose `detail` is the SES record
 * (source `aws.ses`), or the SES record itself (SNS raw delivery, the local stack). → the event to record.
 */
export function readSendOutcome(body: string): Ok<{ event: SendOutcome }> | Fail<SendOutcomeRefusal> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return fail("not-json");
  }
  const envelope = json as { source?: unknown; detail?: unknown };
  const candidate = envelope?.source === "aws.ses" ? envelope.detail : json;
  const type = (candidate as { eventType?: unknown } | null)?.eventType;
  if (!["Bounce", "Complaint", "Reject", "DeliveryDelay"].includes(String(type)))
    return fail("not-recorded-type", String(type).slice(0, 40));
  const parsed = record.safeParse(candidate);
  if (!parsed.success) return fail("malformed", parsed.error.message.slice(0, 300));
  const agent = senderOf(parsed.data);
  if (!agent) return fail("no-sender");
  return { ok: true, event: { agent, sesMessageId: parsed.data.mail.messageId, ...specifics(parsed.data) } };
}

function specifics(r: SesRecord): {
  kind: SendOutcomeKind;
  at: string;
  detail: string;
  recipients: SendOutcomeRecipient[];
} {
  switch (r.eventType) {
    case "Bounce":
      return {
        kind: "bounce",
        at: r.bounce.timestamp,
        detail: `${r.bounce.bounceType}/${r.bounce.bounceSubType}`,
        recipients: r.bounce.bouncedRecipients.map(recipientOf),
      };
    case "Complaint":
      return {
        kind: "complaint",
        at: r.complaint.timestamp,
        detail: r.complaint.complaintFeedbackType ?? r.complaint.complaintSubType ?? "complaint",
        recipients: (r.complaint.complainedRecipients ?? []).map(recipientOf),
      };
    case "Reject":
      // SES's `Reject` event is one thing only: SES took the send, found a virus, and did not deliver it (SES API
      // reference, EventDestination MatchingEventTypes: "REJECT"). A sandbox or account refusal never arrives here:
      // SendEmail itself refuses (`MessageRejected` → `ses-rejected:<code>`; `SendingPausedException` → retried),
      // in shared/outbound/process.ts. A reject carries no time of its own: SES refused when the send was made.
      return { kind: "reject", at: r.mail.timestamp, detail: r.reject.reason, recipients: [] };
    case "DeliveryDelay":
      return {
        kind: "delivery-delay",
        at: r.deliveryDelay.timestamp,
        detail: r.deliveryDelay.delayType,
        recipients: (r.deliveryDelay.delayedRecipients ?? []).map(recipientOf),
      };
  }
}

function recipientOf(r: z.infer<typeof recipient>): SendOutcomeRecipient {
  return {
    address: r.emailAddress.toLowerCase(),
    ...(r.status ? { status: r.status } : {}),
    ...(r.diagnosticCode ? { diagnostic: r.diagnosticCode.slice(0, MAX_DIAGNOSTIC) } : {}),
  };
}

/**
 * The agent that sent the mail: its From header (SES's `commonHeaders.from`), else the send's source; the address
 * inside angle brackets when a display name precedes it. The outbound forces From to the agent (G9).
 */
function senderOf(r: SesRecord): string | null {
  const from = r.mail.commonHeaders?.from?.[0] ?? r.mail.source;
  if (!from) return null;
  const bracketed = /<([^<>\s]+@[^<>\s]+)>\s*$/.exec(from);
  const address = (bracketed?.[1] ?? from).trim().toLowerCase();
  return /^[^\s@<>]+@[^\s@<>]+$/.test(address) ? address : null;
}

/**
 * One SQS body → the agent's record of it. A record of a kind Postern does not record is done with; a malformed one
 * is refused (the DLQ keeps it for an operator: SES changed its shape, or something else writes to the queue).
 */
export async function recordSendOutcome(
  body: string,
  deps: DeliveryEventsDeps,
): Promise<"recorded" | "ignored" | "refused"> {
  const read = readSendOutcome(body);
  if (!read.ok) {
    if (read.reason === "not-recorded-type") {
      deps.logger.info("delivery event not recorded", { eventType: read.detail });
      return "ignored";
    }
    deps.logger.error("unusable delivery event", { reason: read.reason, detail: read.detail });
    return "refused";
  }
  await deps.log.record(read.event);
  // One line per event, so a log metric filter (or a person) sees bounces and complaints without the console.
  deps.logger.warn("delivery event", {
    agent: read.event.agent,
    kind: read.event.kind,
    detail: read.event.detail,
    sesMessageId: read.event.sesMessageId,
    recipients: read.event.recipients.length,
  });
  // A bounce or a reject means the mail did not arrive after all (`send.delivered` said SES took it): a signed
  // `send.failed` with SES's classification. Complaints and delays are not failures of the send.
  const { event } = read;
  if (event.kind === "bounce" || event.kind === "reject")
    await deps.webhooks.emit({
      type: "send.failed",
      key: `${event.sesMessageId}#${event.kind}`,
      data: {
        agent: event.agent,
        sesMessageId: event.sesMessageId,
        reason: event.kind,
        detail: event.detail,
        recipients: event.recipients.length,
      },
    });
  return "recorded";
}
