import { PosternError } from "../errors.ts";
import type { MailOrigin } from "../mail/index.ts";
import type { OutboundPayload } from "../payloads/index.ts";
import { type FailureClass, UNKNOWN_OUTCOME_LOG } from "../ports/index.ts";
import type { OutboundDeps, SendPlan, SendRecord, SesOutcome, SesSendInput } from "./ports.ts";
import { prepareSend } from "./prepare.ts";
import type { PrepareFailureReason } from "./reasons.ts";

/**
 * Exactly one SES send per request id under SQS redelivery and crashes: a conditional state machine per request
 * (see docs/outbound.md). Every step is a conditional write, so of two copies of one request only one can move
 * an item forward, and a redelivery resumes from whatever state it finds.
 */

export type OutboundOutcome =
  /** Sent and recorded (now or by an earlier delivery: `replayed`). */
  | {
      readonly status: "done";
      readonly requestId: string;
      readonly headerMessageId: string;
      readonly replayed: boolean;
    }
  /** Never sent, and never will be: a permanent reason. */
  | {
      readonly status: "failed";
      readonly requestId: string;
      readonly reason: PrepareFailureReason | "ses-rejected";
      readonly code?: string;
    }
  /** The unclosable window: SES may or may not have the message. Not re-sent; flagged for an operator. */
  | { readonly status: "unknown"; readonly requestId: string }
  /** Try again later (the queue redelivers): throttled by SES, or another worker holds the send right now. */
  | { readonly status: "retry"; readonly requestId: string; readonly reason: "ses-throttled" | "in-flight" };

export interface ProcessOptions {
  /**
   * Set by the caller, never by the queue message: operator mail sent with the CLI (`postern send`) is not
   * stamped with a hop count or Auto-Submitted (G5). The outbound function always uses `agent`.
   */
  readonly origin?: MailOrigin;
}

/**
 * How long a `sending` item may belong to a live worker: longer than an SES call may take (SES_SEND_TIMEOUT_MS),
 * shorter than the queue's visibility timeout, so the first redelivery after a crash judges the item
 * (test/infra/stack.test.ts holds the deployed stack to both).
 */
export const SEND_LEASE_MS = 120_000;

export async function processOutboundRequest(
  message: OutboundPayload,
  deps: OutboundDeps,
  opts: ProcessOptions = {},
): Promise<OutboundOutcome> {
  const { requestId } = message;
  const now = (): string => deps.clock().toISOString();
  // Claim first: on a first delivery (the common case) that is the only state round trip before sending.
  if (await deps.state.claim(requestId, now())) return sendClaimed(message, deps, opts.origin ?? "agent");
  const record = await deps.state.get(requestId);
  if (!record)
    throw new PosternError("invariant-broken", `send state for ${requestId} vanished after a failed claim`);
  return resume(record, message, deps, opts.origin ?? "agent");
}

async function resume(
  record: SendRecord,
  message: OutboundPayload,
  deps: OutboundDeps,
  origin: MailOrigin,
): Promise<OutboundOutcome> {
  const { requestId } = record;
  switch (record.state) {
    case "claimed":
      // A crash before `sending` means SES was never called: preparing again is safe.
      return sendClaimed(message, deps, origin);
    case "sending":
      return foundSending(record, deps);
    case "sent":
      return finish(record, deps, true);
    case "done":
      return { status: "done", requestId, headerMessageId: record.headerMessageId ?? "", replayed: true };
    case "failed": {
      const stored = record.reason ?? "";
      return stored.startsWith("ses-rejected:")
        ? { status: "failed", requestId, reason: "ses-rejected", code: stored.slice("ses-rejected:".length) }
        : { status: "failed", requestId, reason: stored as PrepareFailureReason };
    }
    case "unknown":
      return { status: "unknown", requestId };
  }
}

async function sendClaimed(
  message: OutboundPayload,
  deps: OutboundDeps,
  origin: MailOrigin,
): Promise<OutboundOutcome> {
  const { requestId } = message;
  const now = (): string => deps.clock().toISOString();
  const prepared = await prepareSend(message, deps, origin);
  if (!prepared.ok) return refusePrepared(message, prepared, deps, origin);
  const { plan, raw } = prepared;
  // Evidence first: what we are about to hand to SES, byte for byte (PREFIXES.outbound).
  await deps.blobs.put(plan.rawKey, raw, "message/rfc822");
  if (plan.body === undefined)
    await deps.blobs.put(plan.bodyKey, new TextEncoder().encode(prepared.body), "text/plain; charset=utf-8");

  const sendingAt = now();
  if (!(await deps.state.transition(requestId, ["claimed"], "sending", { plan, sendingAt }, sendingAt))) {
    // Another copy of this request moved the item first; follow it rather than send a second time.
    const current = await deps.state.get(requestId);
    if (!current || current.state === "claimed")
      throw new PosternError("invariant-broken", `send state race on ${requestId}`);
    return resume(current, message, deps, origin);
  }

  let outcome: SesOutcome;
  try {
    outcome = await deps.ses.send(sesRequest(raw, plan, deps.config.outbound.configurationSet));
  } catch (err) {
    // No answer from SES: it may have accepted the mail. Sending again could duplicate it, so stop here.
    await markUnknown(requestId, deps, "ses-no-answer", err);
    return { status: "unknown", requestId };
  }
  if (outcome.kind === "rejected") return settleRejected(message, plan, outcome, deps, origin);

  const fields = {
    sesMessageId: outcome.messageId,
    headerMessageId: deps.headerMessageId(outcome.messageId),
    sentAt: now(),
  };
  // From `unknown` too: a lease-expired redelivery may have flagged us while SES was slow, but now we know.
  if (await deps.state.transition(requestId, ["sending", "unknown"], "sent", fields, fields.sentAt)) {
    return finish(
      { requestId, state: "sent", claimedAt: sendingAt, updatedAt: fields.sentAt, plan, ...fields },
      deps,
      false,
    );
  }
  const sent = await deps.state.get(requestId);
  if (!sent) throw new PosternError("invariant-broken", `send state for ${requestId} vanished after sending`);
  return resume(sent, message, deps, origin);
}

/** A request that can never be sent: failed for good before SES is called, logged and reported (G19). */
async function refusePrepared(
  message: OutboundPayload,
  refused: { readonly reason: PrepareFailureReason; readonly detail?: string },
  deps: OutboundDeps,
  origin: MailOrigin,
): Promise<OutboundOutcome> {
  const { requestId } = message;
  const { reason, detail } = refused;
  const moved = await deps.state.transition(
    requestId,
    ["claimed"],
    "failed",
    { reason, ...(detail === undefined ? {} : { detail }) },
    deps.clock().toISOString(),
  );
  deps.logger.warn("outbound: request refused", {
    requestId,
    agent: message.agent,
    reason,
    ...(detail === undefined ? {} : { detail }),
  });
  // Only the delivery that moved the item reports: a copy that lost the race must not count it twice.
  if (moved) await reportFailed(message, reason, detail, deps, origin);
  return { status: "failed", requestId, reason };
}

/**
 * Which failure a request's end is (G19): an engine notice, a confirm card (the engine chose its recipients from
 * the approvers), or mail an agent asked for.
 */
export function failureClassOf(message: OutboundPayload): FailureClass {
  if (message.kind === "notice") return "notice-undelivered";
  if (message.recipientsFrom === "approvers") return "card-undelivered";
  return "send-failed";
}

async function reportFailed(
  message: OutboundPayload,
  reason: string,
  detail: string | undefined,
  deps: OutboundDeps,
  origin: MailOrigin,
): Promise<void> {
  // Operator mail (`postern send`) fails on the operator's own terminal, with the reason: nobody else to tell.
  if (origin === "operator") return;
  await deps.webhooks.emit({
    type: "send.failed",
    key: message.requestId,
    data: {
      agent: message.agent,
      requestId: message.requestId,
      runId: message.runId ?? null,
      class: failureClassOf(message),
      reason,
    },
  });
  await deps.failures.report({
    class: failureClassOf(message),
    reason,
    agent: message.agent,
    requestId: message.requestId,
    correlationId: message.correlationId,
    ...(detail === undefined ? {} : { detail }),
    ...(message.runId === undefined ? {} : { runId: message.runId }),
  });
}

/** What SES is handed: the prepared bytes and the plan's envelope, whose From is the plan's, never the request's. */
function sesRequest(raw: Buffer, plan: SendPlan, configurationSet: string | undefined): SesSendInput {
  return {
    raw,
    from: plan.from,
    to: plan.to,
    cc: plan.cc,
    bcc: plan.bcc,
    ...(configurationSet ? { configurationSet } : {}),
  };
}

/**
 * SES refused: throttled goes back to `claimed` for the queue's redelivery; anything else fails for good, with SES's
 * own message kept beside its code (in the SES sandbox, "Email address is not verified" names the fix) and
 * reported (G19).
 */
async function settleRejected(
  message: OutboundPayload,
  plan: SendPlan,
  outcome: Extract<SesOutcome, { kind: "rejected" }>,
  deps: OutboundDeps,
  origin: MailOrigin,
): Promise<OutboundOutcome> {
  const { requestId } = message;
  const now = deps.clock().toISOString();
  if (outcome.retryable) {
    await deps.state.transition(requestId, ["sending"], "claimed", {}, now);
    return { status: "retry", requestId, reason: "ses-throttled" };
  }
  const reason = `ses-rejected:${outcome.code}` as const;
  const moved = await deps.state.transition(
    requestId,
    ["sending"],
    "failed",
    { reason, ...(outcome.message === undefined ? {} : { detail: outcome.message }) },
    now,
  );
  deps.logger.error("outbound: SES rejected the message", {
    requestId,
    agent: plan.agent,
    code: outcome.code,
    ...(outcome.message === undefined ? {} : { sesMessage: outcome.message }),
  });
  if (moved) await reportFailed(message, reason, outcome.message, deps, origin);
  return { status: "failed", requestId, reason: "ses-rejected", code: outcome.code };
}

async function foundSending(record: SendRecord, deps: OutboundDeps): Promise<OutboundOutcome> {
  const { requestId } = record;
  const lease = deps.inFlightLeaseMs ?? SEND_LEASE_MS;
  const age = deps.clock().getTime() - Date.parse(record.sendingAt ?? record.updatedAt);
  // A duplicate delivery while the first worker is still talking to SES: not ours to judge yet.
  if (age < lease) return { status: "retry", requestId, reason: "in-flight" };
  await markUnknown(requestId, deps, "crashed-while-sending", undefined, record);
  return { status: "unknown", requestId };
}

/**
 * A `sending` item whose worker is known to be dead, not merely slow: `unknown` now, with the alarm line, instead of
 * on the first redelivery after the lease. Only for a caller that knows (the local stack at start, one per data
 * directory); a Lambda cannot tell, and waits out the lease.
 */
export async function abandonSend(
  record: SendRecord,
  deps: Pick<OutboundDeps, "state" | "clock" | "logger">,
): Promise<void> {
  await markUnknown(record.requestId, deps, "crashed-while-sending", undefined, record);
}

async function markUnknown(
  requestId: string,
  deps: Pick<OutboundDeps, "state" | "clock" | "logger">,
  reason: "ses-no-answer" | "crashed-while-sending",
  err?: unknown,
  record?: SendRecord,
): Promise<void> {
  const moved = await deps.state.transition(
    requestId,
    ["sending"],
    "unknown",
    { reason },
    deps.clock().toISOString(),
  );
  if (!moved) return;
  const plan = record?.plan ?? (await deps.state.get(requestId))?.plan;
  deps.logger.error(UNKNOWN_OUTCOME_LOG, {
    requestId,
    reason,
    agent: plan?.agent,
    rawKey: plan?.rawKey,
    recipients: plan ? plan.to.length + plan.cc.length + plan.bcc.length : undefined,
    error: err instanceof Error ? `${err.name}: ${err.message}` : undefined,
    action:
      "SES may or may not have sent this mail; it will not be retried. Check the SES event destination / " +
      "recipient, then `postern outbound unknown` to list such requests.",
  });
}

/** sent → recorded in the mailbox → done. Recording is idempotent, so a crash here just records again. */
async function finish(record: SendRecord, deps: OutboundDeps, replayed: boolean): Promise<OutboundOutcome> {
  const { requestId, plan } = record;
  if (!plan || !record.sesMessageId || !record.headerMessageId || !record.sentAt)
    throw new PosternError("invariant-broken", `send state ${requestId} is sent but incomplete`);
  if (plan.kind === "agent") {
    await deps.mailbox.recordSent({
      agent: plan.agent,
      id: plan.mailboxId,
      direction: "out",
      threadId: plan.threadId,
      headerMessageId: record.headerMessageId,
      sesMessageId: record.sesMessageId,
      inReplyTo: plan.inReplyTo,
      references: plan.references,
      from: plan.from,
      to: plan.to,
      cc: plan.cc,
      bcc: plan.bcc,
      subject: plan.subject,
      sentAt: record.sentAt,
      bodyKey: plan.bodyKey,
      ...(plan.body !== undefined ? { body: plan.body } : {}),
      rawKey: plan.rawKey,
      attachments: plan.attachments,
      hop: plan.hop,
      requestId,
      replyToMessageId: plan.replyToMessageId,
    });
  }
  // SES accepted the mail for delivery; a later bounce or complaint is recorded by the delivery-events function.
  // Emitted before the send is marked done: a function killed between the two is redelivered, finds the send
  // `sent`, archives it again (idempotent) and emits again under the same `webhook-id` (the request id is the key).
  await deps.webhooks.emit({
    type: "send.delivered",
    key: requestId,
    data: {
      agent: plan.agent,
      requestId,
      kind: plan.kind,
      sesMessageId: record.sesMessageId,
      threadId: plan.threadId,
      recipients: plan.to.length + plan.cc.length + plan.bcc.length,
    },
  });
  await deps.state.transition(requestId, ["sent"], "done", {}, deps.clock().toISOString());
  return { status: "done", requestId, headerMessageId: record.headerMessageId, replayed };
}
