import { PREFIXES } from "../config/index.ts";
import { checkOutboundReach } from "../gate/index.ts";
import type { Recipients } from "../mail/index.ts";
import {
  type ComposedMail,
  composeMime,
  type MailOrigin,
  postmasterOf,
  requestMessageId,
  type SendingIdentity,
  sentMailboxId,
} from "../mail/index.ts";
import type { OutboundPayload } from "../payloads/index.ts";
import { inlineBody, SENT_INLINE_BODY_MAX_BYTES } from "../ports/index.ts";
import { type Fail, fail, type Ok } from "../result.ts";
import type { AttachmentMeta } from "../tool-framework/index.ts";
import { addressRequest } from "./addressing.ts";
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
async function sendingIdentity(message: OutboundPayload, deps: OutboundDeps): Promise<Identity> {
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
  message: OutboundPayload,
  deps: OutboundDeps,
  origin: MailOrigin,
): Promise<Prepared> {
  const who = await sendingIdentity(message, deps);
  if (!who.ok) return fail(who.reason);
  const { identity } = who;
  const addressed = await addressRequest(message, identity, deps);
  if (!addressed.ok) return fail(addressed.reason);
  const { mode, threadId, recipients, body } = addressed;
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
      ownDomains: deps.config.outbound.ownDomains,
      // A request the runtime did not mark as a scheduled run's is held to a sender run's reach.
      startedBy: message.startedBy ?? "sender",
      agent: identity.address,
      mode: message.mode,
      to: message.to,
      cc: message.cc,
      bcc: message.bcc,
      ...(addressed.participants ? { reply: addressed.participants } : {}),
      channelClosed: message.channelClosed === true,
    });
    if (!reach.ok) return fail(reach.reason, `refused: ${reach.refused.join(", ")}`);
  }
  if (addressed.withheld.length > 0)
    // The answer still goes to the rest; the operator sees whom a sender's claim did not reach (replyAudience).
    deps.logger.warn("reply-all: withheld addresses at the operator's own domains", {
      requestId: message.requestId,
      reason: "audience-withheld",
      agent: identity.address,
      withheld: addressed.withheld,
    });
  if (recipients.dropped.length)
    deps.logger.warn("outbound: dropped inbound recipients that are not plain addresses", {
      requestId: message.requestId,
      dropped: recipients.dropped.length,
    });

  const attachments = await loadAttachments(
    message,
    identity.address,
    mode.kind === "reply" ? threadId : null,
    deps,
  );
  if (!attachments.ok) return fail(attachments.reason);

  const composedMessageId = requestMessageId(message.requestId, identity.address);
  const date = deps.clock();
  const composed = await composeMime({
    from: identity,
    mode,
    origin: message.kind === "notice" ? "notice" : origin,
    recipients,
    body,
    attachments: attachments.loaded.map((a) => ({
      filename: a.meta.filename,
      contentType: a.meta.contentType,
      bytes: a.bytes,
    })),
    messageId: composedMessageId,
    date,
    limits: deps.config.attachments,
  });
  if (!composed.ok) return fail(composed.reason);
  const plan = sendPlan(message, {
    body,
    agent: identity.address,
    threadId,
    recipients,
    composed,
    attachments: attachments.loaded.map((a) => a.meta),
    composedMessageId,
    date,
  });
  return { ok: true, raw: composed.raw, body, plan };
}

type Loaded = { readonly meta: AttachmentMeta; readonly bytes: Uint8Array };

/**
 * Attachments by id, at most `maxAttachments`, each from the sending agent's own mailbox (G12) and, on a reply,
 * from the thread it answers.
 */
async function loadAttachments(
  message: OutboundPayload,
  agent: string,
  replyThreadId: string | null,
  deps: OutboundDeps,
): Promise<Ok<{ loaded: Loaded[] }> | Fail<"too-many-attachments" | "attachment-not-found">> {
  const loaded: Loaded[] = [];
  if (message.attachmentIds.length > deps.config.attachments.maxAttachments)
    return fail("too-many-attachments");
  for (const id of message.attachmentIds) {
    const found = await deps.attachments.load(agent, id, replyThreadId);
    if (!found) return fail("attachment-not-found");
    loaded.push(found);
  }
  return { ok: true, loaded };
}

/** The plan recorded on the state item: who the mail is from and to, its thread, and where it is kept. */
function sendPlan(
  message: OutboundPayload,
  sent: {
    readonly body: string;
    readonly agent: string;
    readonly threadId: string;
    readonly recipients: Recipients;
    readonly composed: ComposedMail;
    readonly attachments: readonly AttachmentMeta[];
    readonly composedMessageId: string;
    readonly date: Date;
  },
): SendPlan {
  const { agent, recipients, composed } = sent;
  // Fixed in the plan when the item enters `sending`, so every replay records the same mailbox item.
  const mailboxId = sentMailboxId(sent.date, message.requestId);
  return {
    agent,
    kind: message.kind ?? "agent",
    from: agent,
    to: recipients.to,
    cc: recipients.cc,
    bcc: recipients.bcc,
    subject: composed.subject,
    threadId: sent.threadId,
    replyToMessageId: message.mode === "reply" ? (message.replyTo?.messageId ?? null) : null,
    composedMessageId: sent.composedMessageId,
    inReplyTo: composed.inReplyTo,
    references: composed.references,
    hop: composed.hop,
    attachments: sent.attachments,
    rawKey: `${PREFIXES.outbound}${encodeURIComponent(message.requestId)}.eml`,
    bodyKey: `${PREFIXES.mail}${agent}/${mailboxId}/body.txt`,
    // A short body rides in the plan (on the send item) to the mailbox record instead of being written to S3.
    ...(inlineBody(sent.body, SENT_INLINE_BODY_MAX_BYTES) !== undefined ? { body: sent.body } : {}),
    mailboxId,
  };
}
