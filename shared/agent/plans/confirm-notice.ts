import { createHash } from "node:crypto";
import type { ConfirmPayload } from "../../payloads/index.ts";
import { noticeRequest, type OutboundPayload } from "../../payloads/index.ts";
import type { ConfirmNotice } from "./apply-plan.ts";

/**
 * The notice telling an approver why their reply changed nothing (engine-written, G6), sent from the agent they
 * wrote to, stamped hop + 1, and once per reply however often the confirmation is redelivered.
 */
export function confirmNoticeRequest(msg: ConfirmPayload, reason: ConfirmNotice): OutboundPayload {
  return noticeRequest({
    // one notice per reply, however often the confirmation is redelivered
    requestId: `confirm-notice-${createHash("sha256").update(`${msg.replyId}|${msg.agent}`).digest("hex").slice(0, 32)}`,
    from: msg.agent,
    to: msg.sender,
    reason,
    inboundHop: msg.hop,
    correlationId: msg.replyId,
    code: msg.code,
  });
}
