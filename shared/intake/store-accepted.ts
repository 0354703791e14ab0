import { createHash } from "node:crypto";
import { roundLimit } from "../admin/index.ts";
import type { DeploymentConfig } from "../config/index.ts";
import { PREFIXES } from "../config/index.ts";
import type { Decision } from "../gate/index.ts";
import type { ParsedMail } from "../mail/index.ts";
import { routingKey } from "../mail/index.ts";
import type { Blobs, RunCreator, ThreadHeaders, ThreadIndex } from "../ports/index.ts";
import {
  type AttachmentRef,
  inlineBody,
  type MessageProof,
  type MessageRecord,
  type MessageStore,
  type ThreadedBy,
} from "../ports/index.ts";
import type { InboundEvent } from "./notification.ts";
import { signedThreading } from "./signed-threading.ts";

export interface AcceptStores {
  readonly messages: MessageStore;
  readonly threads: ThreadIndex;
  readonly runs: RunCreator;
  readonly blobs: Blobs;
}

type Accepted = Extract<Decision, { verdict: "accept" }>;

const digest = (...parts: string[]): string => createHash("sha256").update(parts.join("|")).digest("hex");

/** Ids derived from the SES message id and the agent, so a redelivered notification converges on the same items. */
export function acceptedIds(sesMessageId: string, agent: string, receivedAt: string) {
  const at = new Date(receivedAt);
  const stamp = (Number.isNaN(at.getTime()) ? new Date(0) : at).toISOString().replace(/[-:.Z]/g, "");
  return {
    messageId: `${stamp}-${digest("msg", sesMessageId, agent).slice(0, 8)}`,
    runId: `run-${digest("run", sesMessageId, agent).slice(0, 24)}`,
    attachmentId: (i: number) => `att-${digest("att", sesMessageId, agent, String(i)).slice(0, 20)}`,
  };
}

/**
 * Store an accepted message in the agent's mailbox (body and attachments in S3 under the agent, G12), thread it
 * per agent, and create its reply run. Every write is conditional or idempotent.
 */
export async function storeAccepted(
  input: {
    event: InboundEvent;
    decision: Accepted;
    mail: ParsedMail;
    config: DeploymentConfig;
    startRun: boolean;
  },
  stores: AcceptStores,
): Promise<{
  messageId: string;
  runId: string | null;
  threadId: string;
  joinRefused: string | null;
  /** Threading fields the proving signature does not cover, ignored: the caller logs them. */
  unsignedThreading: readonly string[];
}> {
  const { event, decision, mail, config } = input;
  const agent = decision.agent.address;
  const ids = acceptedIds(event.sesMessageId, agent, event.receivedAt);
  const bodyKey = `${PREFIXES.mail}${agent}/${ids.messageId}/body.txt`;
  const body = inlineBody(mail.text ?? "");
  if (body === undefined) await stores.blobs.put(bodyKey, mail.text ?? "", "text/plain; charset=utf-8");
  const attachments: AttachmentRef[] = [];
  for (const [i, a] of mail.attachments.entries()) {
    const id = ids.attachmentId(i);
    const key = `${PREFIXES.files}${agent}/${id}`;
    await stores.blobs.put(key, a.content, a.contentType);
    attachments.push({ id, filename: a.filename ?? "", contentType: a.contentType, size: a.size, key });
  }
  // Only signed threading fields place a mail in a thread (signed-threading.ts), or an unsigned one the gate
  // matched to mail this agent sent to this sender (addressing `reply`). A message without a signed Message-ID
  // still needs one to thread replies: derive it from SES's id (the same on a redelivery).
  const threading = signedThreading(mail, decision.sender.signedHeaders);
  // Unsigned threading fields the gate matched to mail this agent sent to this sender (shared/gate/addressed.ts).
  const ownMail =
    threading.inReplyTo === null && threading.references.length === 0
      ? (decision.ownMail?.messageId ?? null)
      : null;
  const inReplyTo = threading.inReplyTo ?? ownMail;
  const references = ownMail !== null && threading.references.length === 0 ? [ownMail] : threading.references;
  const headerMessageId = (threading.messageId ?? `${event.sesMessageId}@inbound.postern`).replace(
    /^<|>$/g,
    "",
  );
  const subject = mail.subject ?? "";
  const { threadId, joinRefused, joined } = await chooseThread(
    stores.threads,
    { agent, sender: decision.sender.routingKey, participants: participantsOf(decision) },
    { headerMessageId, inReplyTo, references, subject },
  );
  const record: MessageRecord = {
    agent,
    id: ids.messageId,
    direction: "in",
    threadId,
    headerMessageId,
    inReplyTo,
    references: [...references],
    from: decision.sender.address,
    fromName: decision.sender.displayName,
    // G9: only what the proving signature covers. A To or Cc someone added outside it (a relay, a replayer)
    // never receives the agent's reply-all.
    to: [...decision.sender.signedRecipients.to],
    cc: [...decision.sender.signedRecipients.cc],
    subject,
    at: event.receivedAt,
    bodyKey,
    ...(body !== undefined ? { body } : {}),
    hasHtmlOnly: !mail.text?.trim() && !!mail.html,
    attachments,
    hop: decision.hop,
    sesMessageId: event.sesMessageId,
    // G6: a run this mail starts never mails its sender unasked (no failure notice).
    ...(decision.automatic ? { automatic: true } : {}),
    addressing: decision.addressing.kind,
    threadedBy: threadedBy(ownMail, joined),
    proof: messageProof(decision, mail, threading.unsigned),
  };
  // touch() counts messages: only the first delivery may count this one.
  if ((await stores.messages.put(record)).ok) {
    await stores.threads.touch(agent, threadId, { lastMessageAt: event.receivedAt, subject });
  }
  const unsignedThreading = ownMail === null ? threading.unsigned : [];
  if (!input.startRun)
    return { messageId: ids.messageId, runId: null, threadId, joinRefused, unsignedThreading };
  const maxRounds = roundLimit(config, decision.agent);
  await stores.runs.create({
    runId: ids.runId,
    agent,
    kind: "reply",
    messageId: ids.messageId,
    responsibilityId: null,
    sender: decision.sender.routingKey,
    threadId,
    maxRounds,
    correlationId: event.sesMessageId,
  });
  return { messageId: ids.messageId, runId: ids.runId, threadId, joinRefused, unsignedThreading };
}

/**
 * How the sender was proven, for whoever later weighs this mail (an approver reading a plan it asked for, G14).
 * Strict alignment (G2): the proving signature's d= is the From domain.
 */
function messageProof(
  decision: Accepted,
  mail: Pick<ParsedMail, "inReplyTo" | "references">,
  unsigned: readonly string[],
): MessageProof {
  const signed = new Set(decision.sender.signedHeaders);
  const carried = mail.inReplyTo !== null || mail.references.length > 0;
  const threadingUnsigned = unsigned.includes("in-reply-to") || unsigned.includes("references");
  return {
    // the domain whose signature proved the author: a delegated signer's own (senderProof.delegatedSigners)
    dkimDomain:
      decision.sender.via.kind === "dkim" && decision.sender.via.delegated !== undefined
        ? decision.sender.via.delegated
        : decision.sender.domain,
    signed: {
      to: signed.has("to"),
      cc: signed.has("cc"),
      threading: threadingUnsigned ? "unsigned" : carried ? "signed" : "none",
    },
  };
}

/**
 * How the mail found its thread, from what happened: it joined one by its signed threading fields, by an unsigned
 * one naming the agent's own sent mail, or it started one (nothing named a known thread, or the join was refused).
 */
function threadedBy(ownMail: string | null, joined: boolean): ThreadedBy {
  if (!joined) return "none";
  return ownMail !== null ? "own-message-id" : "signed";
}

/** Who a mail makes a participant of its thread: the proven sender and the signed To/Cc (G9), by routing key. */
function participantsOf(decision: Accepted): string[] {
  const self = routingKey(decision.agent.address);
  const signed = [...decision.sender.signedRecipients.to, ...decision.sender.signedRecipients.cc].map(
    routingKey,
  );
  return [decision.sender.routingKey, ...signed].filter((k) => k !== self);
}

/**
 * Which thread a mail joins (thread grafting). In-Reply-To and References are the sender's own words,
 * and Message-IDs travel in every reply and are often guessable: they may name a thread, but a mail joins it only
 * when its proven sender already took part in it (sent to it, was in a signed To or Cc of a mail in it, or was
 * written to by the agent in it). Otherwise it starts a new thread, and its run sees no earlier mail.
 *
 * Participants are recorded before the Message-ID, so a redelivery, which finds its own Message-ID first, finds its
 * sender a member of the thread the first delivery chose. A mail reusing another mail's Message-ID finds that
 * Message-ID taken: it keeps the other mail's thread only if its sender is a member there too.
 */
async function chooseThread(
  threads: ThreadIndex,
  who: { readonly agent: string; readonly sender: string; readonly participants: readonly string[] },
  headers: ThreadHeaders,
): Promise<{ threadId: string; joinRefused: string | null; joined: boolean }> {
  const { agent, sender } = who;
  const resolved = await threads.resolveThread(agent, headers);
  const member = resolved.isNew || (await threads.isParticipant(agent, resolved.threadId, sender));
  let threadId = member ? resolved.threadId : threads.newThreadId();
  await threads.addParticipants(agent, threadId, who.participants);
  const recorded = await threads.recordMessageId(agent, headers.headerMessageId, threadId);
  if (!recorded.ok && recorded.threadId && recorded.threadId !== threadId) {
    if (await threads.isParticipant(agent, recorded.threadId, sender)) threadId = recorded.threadId;
  }
  return { threadId, joinRefused: member ? null : resolved.threadId, joined: member && !resolved.isNew };
}
