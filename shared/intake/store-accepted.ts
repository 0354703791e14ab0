import { createHash } from "node:crypto";
import type { DeploymentConfig } from "../config/schema.ts";
import { PREFIXES } from "../config/tables.ts";
import type { Decision } from "../gate/gate.ts";
import type { ParsedMail } from "../mail/parse.ts";
import type { Blobs } from "../ports/blobs.ts";
import type { AttachmentRef, MessageRecord, MessageStore } from "../ports/messages.ts";
import type { RunCreator } from "../ports/runs.ts";
import type { ThreadIndex } from "../ports/threads.ts";
import type { InboundEvent } from "./notification.ts";

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
): Promise<{ messageId: string; runId: string | null; threadId: string }> {
  const { event, decision, mail, config } = input;
  const agent = decision.agent.address;
  const ids = acceptedIds(event.sesMessageId, agent, event.receivedAt);
  const bodyKey = `${PREFIXES.mail}${agent}/${ids.messageId}/body.txt`;
  await stores.blobs.put(bodyKey, mail.text ?? "", "text/plain; charset=utf-8");
  const attachments: AttachmentRef[] = [];
  for (const [i, a] of mail.attachments.entries()) {
    const id = ids.attachmentId(i);
    const key = `${PREFIXES.files}${agent}/${id}`;
    await stores.blobs.put(key, a.content, a.contentType);
    attachments.push({ id, filename: a.filename ?? "", contentType: a.contentType, size: a.size, key });
  }
  // A message without a Message-ID still needs one to thread replies: derive it from SES's id.
  const headerMessageId = (mail.messageId ?? `${event.sesMessageId}@inbound.postern`).replace(/^<|>$/g, "");
  const subject = mail.subject ?? "";
  const resolved = await stores.threads.resolveThread(agent, {
    headerMessageId,
    inReplyTo: mail.inReplyTo,
    references: mail.references,
    subject,
  });
  const recorded = await stores.threads.recordMessageId(agent, headerMessageId, resolved.threadId);
  // A redelivery (or a reused Message-ID) keeps the thread the first delivery chose.
  const threadId = !recorded.ok && recorded.threadId ? recorded.threadId : resolved.threadId;
  const record: MessageRecord & { fromName: string } = {
    agent,
    id: ids.messageId,
    direction: "in",
    threadId,
    headerMessageId,
    inReplyTo: mail.inReplyTo,
    references: mail.references,
    from: decision.sender.address,
    fromName: decision.sender.displayName,
    // G9: only what the proving signature covers. A To or Cc someone added outside it (a relay, a replayer)
    // never receives the agent's reply-all.
    to: [...decision.sender.signedRecipients.to],
    cc: [...decision.sender.signedRecipients.cc],
    subject,
    at: event.receivedAt,
    bodyKey,
    hasHtmlOnly: !mail.text?.trim() && !!mail.html,
    attachments,
    hop: decision.hop,
    sesMessageId: event.sesMessageId,
  };
  // touch() counts messages: only the first delivery may count this one.
  if ((await stores.messages.put(record)).ok) {
    await stores.threads.touch(agent, threadId, { lastMessageAt: event.receivedAt, subject });
  }
  if (!input.startRun) return { messageId: ids.messageId, runId: null, threadId };
  const maxRounds = Math.min(config.maxToolTurns, decision.agent.maxToolTurns ?? config.maxToolTurns);
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
    transcriptKey: `${PREFIXES.transcripts}${ids.runId}.json`,
  });
  return { messageId: ids.messageId, runId: ids.runId, threadId };
}
