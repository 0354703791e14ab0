import { PREFIXES } from "../config/tables.ts";
import { checkOutboundReach } from "../gate/outbound-reach.ts";
import { type ComposeMode, composeMime, type MailOrigin, type SendingIdentity } from "../mail/compose.ts";
import { derivedId, requestMessageId, sentMailboxId } from "../mail/message-id.ts";
import { composeNotice, noticeReasonFor, postmasterOf } from "../mail/notice.ts";
import { newMailRecipients, parseAddrSpec, replyAllRecipients } from "../mail/recipients.ts";
import type { OutboundMessage } from "../messages/outbound.ts";
import { type Fail, fail, type Ok } from "../result.ts";
import type { AttachmentMeta } from "../tool-framework/context.ts";
import type { OutboundDeps, SendPlan } from "./ports.ts";
import type { PrepareFailureReason } from "./reasons.ts";

export type { PrepareFailureReason };

export type Prepared =
  | Ok<{ readonly raw: Buffer; readonly plan: SendPlan; readonly body: string }>
  | Fail<PrepareFailureReason>;

type Identity = Ok<{ identity: SendingIdentity }> | Fail<PrepareFailureReason>;

/**
 * The From identity comes from the admin table (or, for notices, the domain's postmaster), looked up by the
 * request's agent address; the request cannot supply a name or another address (G9).
 */
async function sendingIdentity(message: OutboundMessage, deps: OutboundDeps): Promise<Identity> {
  const address = message.agent.toLowerCase();
  const domain = address.slice(address.lastIndexOf("@") + 1);
  // Never send From a domain this deployment does not own, whatever an admin item says.
  if (!deps.config.domains.includes(domain)) return fail("domain-unregistered");
  const agent = await deps.agents.get(address);
  if (agent) {
    if (!agent.enabled && message.kind !== "notice") return fail("agent-disabled");
    return { ok: true, identity: { address: agent.address, name: agent.name } };
  }
  // A notice about no agent (an unknown address at our domain) comes from that domain's postmaster.
  if (message.kind === "notice") return { ok: true, identity: postmasterOf(domain) };
  return fail("agent-unknown");
}

/** Resolve the request into raw MIME and the plan that will be recorded. Pure apart from the reads it makes. */
export async function prepareSend(
  message: OutboundMessage,
  deps: OutboundDeps,
  origin: MailOrigin,
): Promise<Prepared> {
  const who = await sendingIdentity(message, deps);
  if (!who.ok) return fail(who.reason);
  const { identity } = who;
  const max = deps.config.outbound.maxRecipients;
  let mode: ComposeMode;
  let threadId: string;
  let recipients: ReturnType<typeof newMailRecipients>;
  let body = message.body;
  /** A reply's automatic participants: the proven sender and the signed To/Cc of the mail it answers. */
  let participants: { sender: string; to: readonly string[]; cc: readonly string[] } | undefined;

  if (message.kind === "notice") {
    const to = message.to.length === 1 ? parseAddrSpec(message.to[0] ?? "") : fail("recipient-invalid");
    // The text is rendered here from a reason code; a notice can carry nothing a sender wrote (G6). Requests
    // that put the gate's reason code in `body` (shared/intake) are read the same way.
    const reason = message.notice?.reason ?? noticeReasonFor(message.body.trim());
    if (!reason || !to.ok || message.cc.length || message.bcc.length || message.attachmentIds.length)
      return fail("notice-malformed");
    const text = composeNotice(reason, identity.address, message.notice?.code);
    body = text.body;
    mode = { kind: "new", subject: text.subject, respondsToHop: message.notice?.inboundHop ?? 0 };
    threadId = derivedId("notice", message.requestId);
    recipients = newMailRecipients({ to: [to.address], agentAddress: identity.address, max });
  } else if (message.mode === "reply") {
    if (!message.replyTo) return fail("reply-target-missing");
    // The model never sets a reply's subject (G9): a request carrying one is a bug upstream, not a hint.
    if (message.subject !== undefined) return fail("subject-on-reply");
    const parent = await deps.mailbox.getMessage(identity.address, message.replyTo.messageId);
    if (!parent) return fail("reply-target-not-found");
    if (parent.direction !== "in") return fail("reply-target-not-inbound");
    mode = { kind: "reply", parent };
    participants = { sender: parent.from, to: parent.to, cc: parent.cc };
    threadId = parent.threadId;
    recipients = replyAllRecipients({
      inboundFrom: parent.from,
      inboundTo: parent.to,
      inboundCc: parent.cc,
      agentAddress: identity.address,
      extraTo: message.to,
      extraCc: message.cc,
      extraBcc: message.bcc,
      max,
    });
  } else {
    mode = { kind: "new", subject: message.subject ?? "" };
    threadId = derivedId("thread", message.requestId);
    recipients = newMailRecipients({ ...message, agentAddress: identity.address, max });
  }
  if (!recipients.ok) return fail(recipients.reason);
  if (message.kind !== "notice" && origin === "agent" && message.recipientsFrom !== "approvers") {
    // Outbound reach, again here from the admin table (agent-step's deliver checked it first): whatever bug or
    // bypass put this request on the queue, agent mail reaches only a reply's own participants and what the
    // agent's outbound rules allow. Checked on the lists the model supplied (reply-all adds only participants)
    // and refused whole, before anything is composed or stored. Not for notices (the proven sender only, G6),
    // confirm cards (the approvers the operator listed, G14) or operator mail (`postern send`).
    const reach = checkOutboundReach({
      rules: await deps.agents.outboundRules(identity.address),
      domains: deps.config.domains,
      agent: identity.address,
      mode: message.mode,
      to: message.to,
      cc: message.cc,
      bcc: message.bcc,
      ...(participants ? { reply: participants } : {}),
      channelClosed: message.channelClosed === true,
    });
    if (!reach.ok) return fail(reach.reason, `refused: ${reach.refused.join(", ")}`);
  }
  if (recipients.dropped.length)
    deps.logger.warn("outbound: dropped inbound recipients that are not plain addresses", {
      requestId: message.requestId,
      dropped: recipients.dropped.length,
    });

  const attachments: { meta: AttachmentMeta; bytes: Uint8Array }[] = [];
  if (message.attachmentIds.length > deps.config.attachments.maxAttachments)
    return fail("too-many-attachments");
  for (const id of message.attachmentIds) {
    const found = await deps.attachments.load(identity.address, id, mode.kind === "reply" ? threadId : null);
    if (!found) return fail("attachment-not-found");
    attachments.push(found);
  }

  const composedMessageId = requestMessageId(message.requestId, identity.address);
  const date = deps.clock();
  const composed = await composeMime({
    from: identity,
    mode,
    origin: message.kind === "notice" ? "notice" : origin,
    recipients,
    body,
    attachments: attachments.map((a) => ({
      filename: a.meta.filename,
      contentType: a.meta.contentType,
      bytes: a.bytes,
    })),
    messageId: composedMessageId,
    date,
    limits: deps.config.attachments,
  });
  if (!composed.ok) return fail(composed.reason);

  // Fixed in the plan when the item enters `sending`, so every replay records the same mailbox item.
  const mailboxId = sentMailboxId(date, message.requestId);
  return {
    ok: true,
    raw: composed.raw,
    body,
    plan: {
      agent: identity.address,
      kind: message.kind ?? "agent",
      from: identity.address,
      to: recipients.to,
      cc: recipients.cc,
      bcc: recipients.bcc,
      subject: composed.subject,
      threadId,
      replyToMessageId: message.mode === "reply" ? (message.replyTo?.messageId ?? null) : null,
      composedMessageId,
      inReplyTo: composed.inReplyTo,
      references: composed.references,
      hop: composed.hop,
      attachments: attachments.map((a) => a.meta),
      rawKey: `${PREFIXES.outbound}${encodeURIComponent(message.requestId)}.eml`,
      bodyKey: `${PREFIXES.mail}${identity.address}/${mailboxId}/body.txt`,
      mailboxId,
    },
  };
}
