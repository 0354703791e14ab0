import { type ReplyAudience, replyAudience } from "../gate/index.ts";
import type { ComposeMode, SendingIdentity } from "../mail/index.ts";
import {
  composeNotice,
  derivedId,
  newMailRecipients,
  noticeReasonFor,
  parseAddrSpec,
  type RecipientsResult,
  replyAllRecipients,
} from "../mail/index.ts";
import type { OutboundPayload } from "../payloads/index.ts";
import { type Fail, fail, type Ok } from "../result.ts";
import type { OutboundDeps } from "./ports.ts";
import type { PrepareFailureReason } from "./reasons.ts";

/**
 * Who a request's mail goes to, in which thread and with which body, by its kind: a notice (G6), a reply (G9) or
 * new mail. `recipients` is returned as computed, refusal included: the caller refuses on it.
 */
export type Addressing =
  | Ok<{
      readonly mode: ComposeMode;
      readonly threadId: string;
      readonly recipients: RecipientsResult;
      readonly body: string;
      /**
       * A reply's automatic participants: the proven sender and the signed To/Cc of the mail it answers, less
       * those withheld (replyAudience).
       */
      readonly participants: ReplyAudience | null;
      /** Participants a sender outside the operator's domains named at those domains, not written to. */
      readonly withheld: readonly string[];
    }>
  | Fail<PrepareFailureReason>;

export async function addressRequest(
  message: OutboundPayload,
  identity: SendingIdentity,
  deps: OutboundDeps,
): Promise<Addressing> {
  const max = deps.config.outbound.maxRecipients;
  if (message.kind === "notice") return noticeAddressing(message, identity, max);
  if (message.mode === "reply") return replyAddressing(message, identity, deps, max);
  return {
    ok: true,
    mode: { kind: "new", subject: message.subject ?? "" },
    threadId: derivedId("thread", message.requestId),
    recipients: newMailRecipients({ ...message, agentAddress: identity.address, max }),
    body: message.body,
    participants: null,
    withheld: [],
  };
}

/**
 * A notice goes to exactly one address and carries nothing else: its text is rendered here from a reason code,
 * so a notice can carry nothing a sender wrote (G6). Requests that put the gate's reason code in `body`
 * (shared/intake) are read the same way.
 */
function noticeAddressing(message: OutboundPayload, identity: SendingIdentity, max: number): Addressing {
  const to = message.to.length === 1 ? parseAddrSpec(message.to[0] ?? "") : fail("recipient-invalid");
  const reason = message.notice?.reason ?? noticeReasonFor(message.body.trim());
  if (!reason || !to.ok || message.cc.length || message.bcc.length || message.attachmentIds.length)
    return fail("notice-malformed");
  const text = composeNotice(reason, identity.address, message.notice?.code);
  return {
    ok: true,
    mode: { kind: "new", subject: text.subject, respondsToHop: message.notice?.inboundHop ?? 0 },
    threadId: derivedId("notice", message.requestId),
    recipients: newMailRecipients({ to: [to.address], agentAddress: identity.address, max }),
    body: text.body,
    participants: null,
    withheld: [],
  };
}

/**
 * A reply answers an inbound message in the agent's own mailbox (the read is scoped to the agent), in its thread,
 * reply-all from what was stored; the model never sets a reply's subject (G9).
 */
async function replyAddressing(
  message: OutboundPayload,
  identity: SendingIdentity,
  deps: OutboundDeps,
  max: number,
): Promise<Addressing> {
  if (!message.replyTo) return fail("reply-target-missing");
  // The model never sets a reply's subject (G9): a request carrying one is a bug upstream, not a hint.
  if (message.subject !== undefined) return fail("subject-on-reply");
  const parent = await deps.mailbox.getMessage(identity.address, message.replyTo.messageId);
  if (!parent) return fail("reply-target-not-found");
  if (parent.direction !== "in") return fail("reply-target-not-inbound");
  // The audience never widens by a claim: an outside sender's signed Cc at the operator's own domains is not
  // written to unless the outbound rules name the address (replyAudience, G9).
  const audience = replyAudience(
    { sender: parent.from, to: parent.to, cc: parent.cc },
    {
      agent: identity.address,
      rules: await deps.agents.outboundRules(identity.address),
      domains: deps.config.domains,
      ownDomains: deps.config.outbound.ownDomains,
    },
  );
  const { to, cc } = audience.kept;
  return {
    ok: true,
    mode: { kind: "reply", parent },
    participants: audience.kept,
    withheld: audience.withheld,
    threadId: parent.threadId,
    recipients: replyAllRecipients({
      inboundFrom: parent.from,
      inboundTo: to,
      inboundCc: cc,
      agentAddress: identity.address,
      extraTo: message.to,
      extraCc: message.cc,
      extraBcc: message.bcc,
      max,
    }),
    body: message.body,
  };
}
