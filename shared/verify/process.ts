import { createHash } from "node:crypto";
import type { DNSResolver } from "mailauth";
import type { AdminSnapshot } from "../admin/schema.ts";
import type { StepMessage } from "../agent/ports.ts";
import type { DeploymentConfig } from "../config/schema.ts";
import { type Decision, gateMessage } from "../gate/gate.ts";
import type { BlobStore } from "../store/blob-store.ts";
import type { InboundRepo } from "../store/inbound-repo.ts";
import type { Logger, OutboundRequest } from "../tools/context.ts";
import type { InboundEvent } from "./notification.ts";
import { type AcceptStores, storeAccepted } from "./store-accepted.ts";

export interface VerifyDeps {
  readonly config: DeploymentConfig;
  loadAdmin(): Promise<AdminSnapshot>;
  readonly resolver: DNSResolver;
  now(): Date;
  readonly inbound: InboundRepo;
  readonly blobs: BlobStore;
  readonly stores: AcceptStores;
  enqueueStep(message: StepMessage): Promise<void>;
  enqueueOutbound(request: OutboundRequest): Promise<void>;
  readonly logger: Logger;
}

export interface InboundSummary {
  readonly recipient: string;
  readonly verdict: Decision["verdict"];
  readonly reason: string;
  readonly status: "processed" | "duplicate";
  readonly runId?: string;
}

/**
 * The verify function's core: read the raw mail SES stored, run the gate, and act on each recipient's decision.
 * Idempotent: each (SES message, recipient) is claimed once, and every id written is derived from the SES message
 * id, so a redelivery after a crash converges on the same message, thread, run and notice instead of duplicating.
 * Raw mail is never deleted: refused and dropped mail stays as evidence.
 */
export async function processInbound(event: InboundEvent, deps: VerifyDeps): Promise<InboundSummary[]> {
  const raw = await deps.blobs.get(event.objectKey);
  if (!raw) throw new Error(`raw mail ${event.objectKey} not found (SES message ${event.sesMessageId})`);
  const admin = await deps.loadAdmin();
  const result = await gateMessage({
    raw: Buffer.from(raw),
    envelope: { sesMessageId: event.sesMessageId, recipients: event.recipients, mailFrom: event.mailFrom },
    config: deps.config,
    admin,
    resolver: deps.resolver,
    now: deps.now(),
  });
  const out: InboundSummary[] = [];
  for (const decision of result.decisions) {
    const recipient = decision.recipient.toLowerCase();
    const claim = await deps.inbound.claim({
      sesMessageId: event.sesMessageId,
      recipient,
      rawKey: event.objectKey,
      receivedAt: event.receivedAt,
    });
    if (!claim.ok && claim.existing?.status === "done") {
      out.push({ recipient, verdict: decision.verdict, reason: decision.reason, status: "duplicate" });
      continue;
    }
    // G4: the log line names the reason and the address reduced to address characters, nothing the sender wrote.
    deps.logger.info("inbound decision", {
      sesMessageId: event.sesMessageId,
      recipient,
      verdict: decision.verdict,
      reason: decision.reason,
      sender: decision.verdict === "accept" ? decision.sender.routingKey : decision.sender,
    });
    let messageId: string | null = null;
    let runId: string | undefined;
    if (decision.verdict === "accept") {
      if (!result.mail) throw new Error("gate accepted without a parsed message");
      const stored = await storeAccepted(
        { event, decision, mail: result.mail, config: deps.config },
        deps.stores,
      );
      messageId = stored.messageId;
      runId = stored.runId;
      await deps.enqueueStep({ runId, round: 1 });
    } else if (decision.notify && decision.sender) {
      // G6: only a proven sender gets a notice, with engine-written text only.
      await deps.enqueueOutbound(
        noticeFor(event, recipient, decision.agent?.address ?? recipient, decision.sender, decision.reason),
      );
    }
    await deps.inbound.complete(event.sesMessageId, recipient, {
      verdict: decision.verdict,
      reason: decision.reason,
      sender:
        decision.verdict === "accept" ? decision.sender.routingKey : decision.proven ? decision.sender : null,
      agent: decision.agent?.address ?? null,
      messageId,
    });
    out.push({
      recipient,
      verdict: decision.verdict,
      reason: decision.reason,
      status: "processed",
      ...(runId ? { runId } : {}),
    });
  }
  return out;
}

function noticeFor(
  event: InboundEvent,
  recipient: string,
  from: string,
  to: string,
  reason: string,
): OutboundRequest {
  return {
    requestId: `notice-${createHash("sha256").update(`${event.sesMessageId}|${recipient}`).digest("hex").slice(0, 32)}`,
    agent: from,
    mode: "new",
    to: [to],
    cc: [],
    bcc: [],
    body: reason,
    attachmentIds: [],
    correlationId: event.sesMessageId,
    kind: "notice",
  };
}
