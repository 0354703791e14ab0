import * as z from "zod";
import { PosternError } from "../errors.ts";
import { isNoticeReason, NOTICE_REASONS, type NoticeReason } from "../mail/index.ts";
import { type PayloadResult, parsePayload } from "./parse-payload.ts";

/**
 * Who started the run a send comes from: a proven sender's mail, or the operator's schedule (a responsibility).
 * Without an allow rule, a `sender` run writes only to the mail it answers (shared/gate/outbound-reach.ts).
 */
export const RUN_STARTED_BY = ["sender", "schedule"] as const;
export type RunStartedBy = (typeof RUN_STARTED_BY)[number];

/** An outbound send request: what send_email (and notices) put on the outbound queue. */
export interface OutboundRequest {
  /** Idempotency key of the send; one SES call per request id. */
  readonly requestId: string;
  readonly agent: string;
  /** `reply`: threading and subject come from `replyTo` (the stored inbound message), never from the model. */
  readonly mode: "reply" | "new";
  readonly replyTo?: { readonly messageId: string };
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  readonly subject?: string;
  readonly body: string;
  readonly attachmentIds: readonly string[];
  readonly runId?: string;
  readonly correlationId: string;
  /** Engine notices (bounces, budget notices) are stamped like agent mail but carry no thread. */
  readonly kind?: "agent" | "notice";
  /**
   * Set by the runtime's deliver (never by a tool) when the run has read content wider than its sender's own
   * (G18): the outbound then holds even the reply's automatic participants to the agent's outbound rules.
   * Absent means false.
   */
  readonly channelClosed?: boolean;
  /**
   * `approvers`: the engine chose the recipients from the admin tables (a confirm card, G14), not the model, so
   * the agent's outbound rules do not apply. Only the plan-card code sets it; deliver strips it from tools.
   */
  readonly recipientsFrom?: "approvers";
  /**
   * Set by the runtime's deliver (never by a tool) from the run's trigger. Absent means `sender`, the narrower
   * reach: only a request the runtime marked as a scheduled run's may fall back to the registered domains.
   */
  readonly startedBy?: RunStartedBy;
}

/**
 * The outbound queue message: an OutboundRequest (shared/tool-framework/context.ts), plus, for engine notices, the reason
 * code and the refused message's hop count. A notice carries no text: the outbound renders it (G6), so nothing a
 * refused sender wrote can ride along.
 */
export interface NoticeDetails {
  readonly reason: NoticeReason;
  /** X-Postern-Recursion of the message the notice answers: the notice stamps it + 1, so two deployments
   * refusing each other's notices still hit the hop limit. */
  readonly inboundHop: number;
  /** A confirm notice's plan code (engine-generated; printed grouped, never beside APPROVE or CANCEL). */
  readonly code?: string;
}

export type OutboundPayload = OutboundRequest & { readonly notice?: NoticeDetails };

const list = z.array(z.string().max(320)).max(100).default([]);

/** Validated on receipt: the queue is ours, but a malformed message is a bug to surface, not to guess around. */
export const outboundPayloadSchema = z
  .object({
    requestId: z.string().min(1).max(512),
    agent: z.string().min(3).max(320),
    mode: z.enum(["reply", "new"]),
    replyTo: z.object({ messageId: z.string().min(1).max(512) }).optional(),
    to: list,
    cc: list,
    bcc: list,
    subject: z.string().max(10_000).optional(),
    body: z.string().max(1_000_000),
    attachmentIds: z.array(z.string().min(1).max(512)).max(100).default([]),
    runId: z.string().max(512).optional(),
    correlationId: z.string().max(512),
    kind: z.enum(["agent", "notice"]).optional(),
    channelClosed: z.boolean().optional(),
    recipientsFrom: z.enum(["approvers"]).optional(),
    startedBy: z.enum(RUN_STARTED_BY).optional(),
    notice: z
      .object({
        reason: z.enum(NOTICE_REASONS),
        inboundHop: z.number().int().min(0).max(1_000_000),
        code: z
          .string()
          .regex(/^[A-Z2-9]{10}$/)
          .optional(),
      })
      .optional(),
  })
  .refine((m) => m.notice === undefined || m.kind === "notice", "only a notice carries notice details")
  .refine((m) => m.mode === "new" || m.replyTo !== undefined, "a reply needs replyTo");

/** A queue body → the send request it holds, or why not. */
export function parseOutboundPayload(body: string): PayloadResult<OutboundPayload> {
  return parsePayload(body, outboundPayloadSchema);
}

/**
 * What the verify function enqueues to send a notice. `requestId` must be stable for the refused delivery
 * (e.g. `notice:<sesMessageId>:<recipient>`) so a redelivered verify message sends at most one notice.
 */
export function noticeRequest(input: {
  readonly requestId: string;
  /** The agent's address, or `postmaster@<registered domain>` when no agent is concerned. */
  readonly from: string;
  /** The sender proven by G2; nobody else ever gets a notice. */
  readonly to: string;
  readonly reason: NoticeReason;
  readonly inboundHop: number;
  readonly correlationId: string;
  readonly code?: string;
  /** The run the notice is about (a budget or run-failure notice): a notice that fails is reported on it (G19). */
  readonly runId?: string;
}): OutboundPayload {
  if (!isNoticeReason(input.reason))
    throw new PosternError("invalid-argument", `unknown notice reason ${String(input.reason)}`);
  return {
    requestId: input.requestId,
    agent: input.from,
    mode: "new",
    to: [input.to],
    cc: [],
    bcc: [],
    body: "",
    attachmentIds: [],
    correlationId: input.correlationId,
    ...(input.runId === undefined ? {} : { runId: input.runId }),
    kind: "notice",
    notice: {
      reason: input.reason,
      inboundHop: input.inboundHop,
      ...(input.code === undefined ? {} : { code: input.code }),
    },
  };
}
