import { createAttachmentSource } from "../agent/index.ts";
import { PREFIXES } from "../config/index.ts";
import { routingKey } from "../mail/index.ts";
import { perReceive } from "../payloads/index.ts";
import type { MessageRecord, WebhookSink } from "../ports/index.ts";
import { deliveryEventsPk, type SendOutcomeLog } from "../ports/index.ts";
import type { BasePlatform, Platform, Stores } from "../store/index.ts";
import { failureReporter, normalizeMessageId, sendStateStore } from "../store/index.ts";
import type { DeliveryEventsDeps, OutboundDeps, OutboundMailbox, ReplyTarget, SesPort } from "./ports.ts";
import { sesHeaderMessageId } from "./ses-message-id.ts";

/** The repositories store Message-IDs without angle brackets; our header code wants `<...>`. */
const bracketed = (id: string): string => `<${normalizeMessageId(id)}>`;

function toReplyTarget(m: MessageRecord): ReplyTarget {
  return {
    id: m.id,
    threadId: m.threadId,
    direction: m.direction,
    from: m.from,
    to: m.to,
    cc: m.cc,
    subject: m.subject,
    headerMessageId: m.headerMessageId ? bracketed(m.headerMessageId) : null,
    references: (m.references ?? []).map(bracketed),
    inReplyTo: m.inReplyTo ? bracketed(m.inReplyTo) : null,
    hop: typeof m.hop === "number" ? m.hop : 0,
  };
}

function mailbox(stores: Stores): OutboundMailbox {
  return {
    async getMessage(agent, id) {
      const m = await stores.messages.get(agent, id);
      return m ? toReplyTarget(m) : null;
    },
    async recordSent(s) {
      const put = await stores.messages.put({
        agent: s.agent,
        id: s.id,
        direction: "out",
        threadId: s.threadId,
        headerMessageId: normalizeMessageId(s.headerMessageId),
        inReplyTo: s.inReplyTo ? normalizeMessageId(s.inReplyTo) : null,
        references: s.references.map(normalizeMessageId),
        from: s.from,
        to: [...s.to],
        cc: [...s.cc],
        bcc: [...s.bcc],
        subject: s.subject,
        at: s.sentAt,
        bodyKey: s.bodyKey,
        ...(s.body !== undefined ? { body: s.body } : {}),
        hasHtmlOnly: false,
        attachments: s.attachments.map((a) => ({
          id: a.id,
          filename: a.filename ?? "attachment",
          contentType: a.contentType,
          size: a.size,
          key: `${PREFIXES.files}${s.agent}/${a.id}`,
        })),
        hop: s.hop ?? 0,
        sesMessageId: s.sesMessageId,
      });
      // Everyone the agent wrote to takes part in the thread (Bcc too: they got the mail), so their replies may
      // join it; recorded before the Message-ID their replies will name.
      await stores.threads.addParticipants(s.agent, s.threadId, [...s.to, ...s.cc, ...s.bcc].map(routingKey));
      // The recipients' replies reference SES's Message-ID: index it so they join this thread.
      // With who it went to, its subject and when: a reply whose signer leaves In-Reply-To unsigned (Outlook,
      // Microsoft 365, iCloud) joins this thread only by naming this id, from a recipient, later (docs/gate.md).
      await stores.threads.recordMessageId(s.agent, s.headerMessageId, s.threadId, {
        to: [...s.to, ...s.cc, ...s.bcc].map(routingKey),
        subject: s.subject,
        sentAt: s.sentAt,
      });
      // touch() counts messages; only the first recording may count this one.
      if (put.ok)
        await stores.threads.touch(s.agent, s.threadId, { lastMessageAt: s.sentAt, subject: s.subject });
    },
  };
}

/**
 * OutboundDeps over the shared repositories. Attachments resolve within the agent's own mailbox (G12): the
 * reply's thread when one is given, else the agent's whole mailbox; never another agent's partition.
 */
export function outboundDeps(
  platform: Pick<Platform, "stores" | "config" | "logger" | "now"> & {
    readonly resources: Pick<Platform["resources"], "region">;
  },
  parts: {
    readonly ses: SesPort;
    /** Signed events out; none when the stack has no events queue. */
    readonly webhooks: WebhookSink;
  },
): OutboundDeps {
  const { stores } = platform;
  // The agent and its outbound rules from the cached admin snapshot, read once per delivery: one read of the admin
  // version per send, not a scan and not a second read for the agent. Callers without a delivery loop
  // (`postern send`, tests) get a fresh read after a second.
  const admin = perReceive(() => stores.admin.snapshot(), { maxAgeMs: 1000 });
  const clock = platform.now;
  return {
    state: sendStateStore(stores.state),
    ses: parts.ses,
    mailbox: mailbox(stores),
    agents: {
      get: async (address) => (await admin.get()).agents.find((a) => a.address === address) ?? null,
      // All rules, filtered here: an invalid item keyed by a mixed-case agent still binds it (shared/admin/read.ts).
      outboundRules: async (address) => (await admin.get()).outboundRules.filter((r) => r.agent === address),
    },
    beginReceive: () => admin.reset(),
    blobs: { put: (key, bytes, contentType) => stores.blobs.put(key, bytes, contentType) },
    // The same resolution as the run's Mailbox (G12): inbound attachments and agent-created files.
    attachments: createAttachmentSource({
      messages: stores.messages,
      blobs: stores.blobs,
      files: stores.state,
    }),
    config: platform.config,
    clock,
    logger: platform.logger,
    failures: failureReporter(stores, platform.logger, clock),
    headerMessageId: (sesMessageId) => sesHeaderMessageId(sesMessageId, platform.resources.region),
    webhooks: parts.webhooks,
  };
}

/** How long an agent's delivery events are kept (the state table's TTL). */
export const DELIVERY_EVENT_DAYS = 90;

/**
 * The delivery-events function's log: one state item per event under the agent's partition (ports/send-outcomes.ts),
 * written once (a redelivered event finds its item), kept DELIVERY_EVENT_DAYS.
 */
export function sendOutcomeLog(stores: Pick<Stores, "state">): SendOutcomeLog {
  return {
    async record(e) {
      await stores.state.putIfAbsent(
        deliveryEventsPk(e.agent),
        `${e.at}#${e.sesMessageId}#${e.kind}`,
        { event: JSON.stringify(e) },
        DELIVERY_EVENT_DAYS * 24 * 3600,
      );
    },
  };
}

/**
 * The delivery-events function's composition root, the same `(platform, parts) => deps` as the others over the
 * BasePlatform: it records SES's events in the state table and reads no deployment config.
 */
export function deliveryEventsDeps(
  platform: Pick<BasePlatform, "stores" | "logger">,
  parts: {
    /** Signed events out; none when the stack has no events queue. */
    readonly webhooks: WebhookSink;
  },
): DeliveryEventsDeps {
  return {
    log: sendOutcomeLog(platform.stores),
    logger: platform.logger,
    webhooks: parts.webhooks,
  };
}
