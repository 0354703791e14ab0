import { createHash } from "node:crypto";
import type { DNSResolver } from "mailauth";
import type { AdminSnapshot } from "../admin/index.ts";
import type { DeploymentConfig } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import { type Decision, gateMessage, narrowsRun, type ProofVia } from "../gate/index.ts";
import type { Logger } from "../logger.ts";
import type { ParsedMail } from "../mail/index.ts";
import { cardCodes, noticeReasonFor, postmasterOf, readReply } from "../mail/index.ts";
import type { ConfirmEnvelope, ConfirmPayload, OutboundRequest, StepPayload } from "../payloads/index.ts";
import { firstStepOf, noticeRequest } from "../payloads/index.ts";
import type { Blobs, InboundLedger, InboundOutcome, WebhookSink } from "../ports/index.ts";
import type { InboundEvent } from "./notification.ts";
import { type AcceptStores, storeAccepted } from "./store-accepted.ts";

export interface VerifyDeps {
  readonly config: DeploymentConfig;
  loadAdmin(): Promise<AdminSnapshot>;
  readonly resolver: DNSResolver;
  now(): Date;
  readonly inbound: InboundLedger;
  readonly blobs: Blobs;
  readonly stores: AcceptStores;
  enqueueStep(message: StepPayload | ConfirmEnvelope): Promise<void>;
  enqueueOutbound(request: OutboundRequest): Promise<void>;
  /**
   * Record that one signed message reached an agent (G2: one signed message starts at most one run per agent).
   * `first` for the first SES delivery of it, and again for a redelivery of that same SES message; `replay` when
   * another SES message carried the same signed message before.
   */
  claimSignedMessage(agent: string, key: string, sesMessageId: string): Promise<"first" | "replay">;
  /** The agent whose pending plan carries this confirm code, if any. */
  planAgent(code: string): Promise<string | null>;
  readonly logger: Logger;
  /** Signed events out (docs/events.md): `mail.accepted` / `mail.refused` per recipient. */
  readonly webhooks: WebhookSink;
}

/**
 * What verify records and logs per recipient: the gate's decision code (`accepted`, or a GateReason), or
 * `replayed` when the same signed message reached the agent before (G2). Operators and traces key on these.
 */
export type InboundReason = Decision["reason"] | "replayed";

/** The inbound record as verify completes it: the store keeps `reason` as a string; verify writes only these. */
type InboundCompletion = Omit<InboundOutcome, "reason"> & { readonly reason: InboundReason };

export interface InboundSummary {
  readonly recipient: string;
  readonly verdict: Decision["verdict"];
  readonly reason: InboundReason;
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
  if (!raw)
    throw new PosternError(
      "record-missing",
      `raw mail ${event.objectKey} not found (SES message ${event.sesMessageId})`,
    );
  const admin = await deps.loadAdmin();
  const result = await gateMessage({
    // A view, not a copy: a 10 MB mail held twice is 10 MB more peak memory.
    raw: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength),
    envelope: { sesMessageId: event.sesMessageId, recipients: event.recipients, mailFrom: event.mailFrom },
    config: deps.config,
    admin,
    resolver: deps.resolver,
    now: deps.now(),
    sentMail: (agent, ids) => deps.stores.threads.sentMail(agent, ids),
  });
  const out: InboundSummary[] = [];
  for (const decision of result.decisions) out.push(await actOn(decision, result.mail, event, deps));
  return out;
}

/** One recipient's decision, once: claimed, logged, then the mail is handed on, dropped or answered. */
async function actOn(
  decision: Decision,
  mail: ParsedMail | null,
  event: InboundEvent,
  deps: VerifyDeps,
): Promise<InboundSummary> {
  const recipient = decision.recipient.toLowerCase();
  const claim = await deps.inbound.claim({
    sesMessageId: event.sesMessageId,
    recipient,
    rawKey: event.objectKey,
    receivedAt: event.receivedAt,
  });
  if (!claim.ok && claim.existing?.status === "done")
    return { recipient, verdict: decision.verdict, reason: decision.reason, status: "duplicate" };
  logDecision(decision, recipient, event, deps);
  let handed: { messageId: string | null; runId?: string } = { messageId: null };
  if (decision.verdict === "accept" && (await isReplay(decision, event, deps)))
    return dropReplay(decision, recipient, event, deps);
  if (decision.verdict === "accept") {
    if (!mail) throw new PosternError("invariant-broken", "gate accepted without a parsed message");
    handed = await handOn(decision, mail, event, deps);
  } else if (decision.notify) {
    // G6: only a proven sender gets a notice, with engine-written text only.
    const notice = noticeFor(event, recipient, decision);
    if (notice) await deps.enqueueOutbound(notice);
  }
  await emitVerdict(
    deps,
    event,
    recipient,
    decision.verdict === "accept"
      ? {
          verdict: "accept",
          reason: decision.reason,
          agent: decision.agent.address,
          sender: decision.sender.routingKey,
          messageId: handed.messageId,
          runId: handed.runId ?? null,
          ...(mail ? { mail: { subject: mail.subject ?? "", text: mail.text ?? "" } } : {}),
        }
      : {
          verdict: decision.verdict,
          reason: decision.reason,
          agent: decision.agent?.address ?? null,
          sender: decision.proven ? decision.sender : null,
        },
  );
  await complete(deps, event, recipient, {
    verdict: decision.verdict,
    reason: decision.reason,
    sender:
      decision.verdict === "accept" ? decision.sender.routingKey : decision.proven ? decision.sender : null,
    agent: decision.agent?.address ?? null,
    messageId: handed.messageId,
    // the refusal's detail (engine text, G4): the console shows which signer or field it was about
    ...(decision.verdict !== "accept" && decision.detail !== undefined ? { detail: decision.detail } : {}),
  });
  return {
    recipient,
    verdict: decision.verdict,
    reason: decision.reason,
    status: "processed",
    ...(handed.runId ? { runId: handed.runId } : {}),
  };
}

/** G4: the decision's log line names the reason and the address reduced to address characters, nothing the sender wrote. */
function logDecision(decision: Decision, recipient: string, event: InboundEvent, deps: VerifyDeps): void {
  deps.logger.info("inbound decision", {
    sesMessageId: event.sesMessageId,
    recipient,
    verdict: decision.verdict,
    reason: decision.reason,
    ...(decision.verdict !== "accept" && decision.detail !== undefined ? { detail: decision.detail } : {}),
    ...(decision.verdict === "accept" && decision.sender.signedRecipients.refused.length > 0
      ? { signedRecipientsRefused: decision.sender.signedRecipients.refused }
      : {}),
    // How the signer's word on the audience was proven (docs/gate.md): envelope and reply narrow the run.
    ...(decision.verdict === "accept"
      ? {
          addressing: decision.addressing.kind,
          narrowed: narrowsRun(decision.addressing),
          provenBy: provenBy(decision.sender.via),
        }
      : {}),
    sender: decision.verdict === "accept" ? decision.sender.routingKey : decision.sender,
  });
}

/** G2: the same signed message, relayed again (by its recipient, or a list): kept, recorded, said nothing. */
async function dropReplay(
  decision: Extract<Decision, { verdict: "accept" }>,
  recipient: string,
  event: InboundEvent,
  deps: VerifyDeps,
): Promise<InboundSummary> {
  deps.logger.warn("inbound replay dropped", {
    sesMessageId: event.sesMessageId,
    recipient,
    reason: "replayed",
    sender: decision.sender.routingKey,
  });
  // The event before the claim is closed (below, and for every verdict): see emitVerdict.
  await emitVerdict(deps, event, recipient, {
    verdict: "drop",
    reason: "replayed",
    agent: decision.agent.address,
  });
  await complete(deps, event, recipient, {
    verdict: "drop",
    reason: "replayed",
    sender: decision.sender.routingKey,
    agent: decision.agent.address,
    messageId: null,
  });
  return { recipient, verdict: "drop", reason: "replayed", status: "processed" };
}

/** How an accepted sender was proven, for the decision line: DKIM, a delegated signer, or ARC sealers. */
function provenBy(via: ProofVia): string {
  if (via.kind === "arc") return `arc:${via.sealer}`;
  return via.delegated !== undefined ? `dkim-delegated:${via.delegated}` : "dkim";
}

/**
 * One recipient's verdict as a signed event: ids and reason codes. Emitted before the claim is closed: a function
 * killed between the two is redelivered, finds the claim open, decides again and emits again, under the same
 * `webhook-id` (the key is the SES message and recipient), so the event is delivered at least once instead of lost. Only accepted mail can carry its text (to an
 * endpoint that opted in); refused mail's never does (G4), and its sender only when proven, reduced to an address.
 */
async function emitVerdict(
  deps: VerifyDeps,
  event: InboundEvent,
  recipient: string,
  v: {
    readonly verdict: Decision["verdict"];
    readonly reason: InboundReason;
    readonly agent: string | null;
    readonly sender?: string | null;
    readonly messageId?: string | null;
    readonly runId?: string | null;
    readonly mail?: { readonly subject: string; readonly text: string };
  },
): Promise<void> {
  const accepted = v.verdict === "accept";
  await deps.webhooks.emit({
    type: accepted ? "mail.accepted" : "mail.refused",
    key: `${event.sesMessageId}#${recipient}`,
    data: {
      agent: v.agent,
      recipient,
      sesMessageId: event.sesMessageId,
      verdict: v.verdict,
      reason: v.reason,
      sender: v.sender ?? null,
      ...(accepted ? { messageId: v.messageId ?? null, runId: v.runId ?? null } : {}),
    },
    ...(accepted && v.mail ? { mail: v.mail } : {}),
  });
}

/** Close the (SES message, recipient) claim with the decision: typed here, where the store takes any string. */
async function complete(
  deps: VerifyDeps,
  event: InboundEvent,
  recipient: string,
  outcome: InboundCompletion,
): Promise<void> {
  await deps.inbound.complete(event.sesMessageId, recipient, outcome);
}

/** Store an accepted mail and hand it to agent-step: as a reply about a plan (G14), or as a new run. */
async function handOn(
  decision: Extract<Decision, { verdict: "accept" }>,
  mail: ParsedMail,
  event: InboundEvent,
  deps: VerifyDeps,
): Promise<{ messageId: string | null; runId?: string }> {
  // G14: an approver's reply about a plan goes to the plan, not to a new run.
  const confirmation = await confirmationIn(mail, decision.agent.address, deps);
  const stored = await storeAccepted(
    { event, decision, mail, config: deps.config, startRun: confirmation === null },
    deps.stores,
  );
  if (stored.unsignedThreading.length > 0) {
    // Threading headers the proving signature does not cover are anyone's words; they were read as
    // absent. Operators see which, so a signer that never signs them (docs/gate.md) is recognisable.
    deps.logger.info("threading headers unsigned", {
      sesMessageId: event.sesMessageId,
      reason: "threading-unsigned",
      agent: decision.agent.address,
      sender: decision.sender.routingKey,
      fields: stored.unsignedThreading,
      threadId: stored.threadId,
    });
  }
  if (stored.joinRefused) {
    // The headers named a thread the proven sender never took part in. The mail is kept, in a thread of
    // its own; operators see who tried to join which thread (addresses reduced to address characters, G4).
    deps.logger.warn("thread join refused", {
      sesMessageId: event.sesMessageId,
      reason: "thread-join-refused",
      agent: decision.agent.address,
      sender: decision.sender.routingKey,
      namedThread: stored.joinRefused,
      threadId: stored.threadId,
    });
  }
  if (confirmation) {
    await deps.enqueueStep({
      confirm: {
        ...confirmation,
        sender: decision.sender.routingKey,
        agent: decision.agent.address,
        replyId: event.sesMessageId,
        hop: decision.hop,
        // Agent-originated mail can never confirm: every mail an agent sends carries this header (G5).
        agentOriginated: mail.headers.some((h) => h.key === "x-postern-recursion"),
      },
    });
    return { messageId: stored.messageId };
  }
  if (!stored.runId) return { messageId: stored.messageId };
  // A run this mail created: nothing saved, proposed or read yet (heeded only on round 1's first claim).
  await deps.enqueueStep(firstStepOf(stored.runId));
  return { messageId: stored.messageId, runId: stored.runId };
}

/**
 * A reply about a plan (G14). A decision is only the first line of the approver's own fresh words (see
 * readConfirmation: a rule of position, so a refusal typed above a quoted approval never applies, in any
 * language; and readReply: a text part and an HTML part that disagree decide nothing); a reply that holds no such
 * decision but names a pending plan's code (in a confirmation line further down, in what it quotes, or in its
 * subject) is `unclear`: it applies nothing, and the approver is told exactly what to send. Other mail is not
 * about a plan.
 */
async function confirmationIn(
  mail: ParsedMail,
  agent: string,
  deps: VerifyDeps,
): Promise<Pick<ConfirmPayload, "code" | "action" | "understood"> | null> {
  const reading = readReply(mail);
  if (reading.kind === "approve" || reading.kind === "cancel")
    return { code: reading.code, action: reading.kind };
  const named = reading.kind === "none" ? [] : reading.codes;
  // At most five look-ups per reply, however many codes a mail spells out.
  const candidates = [...new Set([...named, ...cardCodes([mail.subject, mail.text, mail.html])])].slice(0, 5);
  const understood =
    reading.kind === "ambiguous" ? (named.length > 1 ? "several-codes" : "conflicting") : "nothing";
  for (const code of candidates)
    if ((await deps.planAgent(code)) === agent) return { code, action: "unclear", understood };
  return null;
}

/**
 * One signed message is the proving signature itself: its d= (the From domain, G2's exact alignment) and its b=
 * (hashed). Nothing a relay or a replayer can add changes either without breaking the signature; a header added
 * on top (a second Message-ID: only signed fields count, G2) is not part of the key. A resend by the author is a new signature.
 */
async function isReplay(
  decision: Extract<Decision, { verdict: "accept" }>,
  event: InboundEvent,
  deps: VerifyDeps,
): Promise<boolean> {
  const key = createHash("sha256")
    .update([decision.sender.domain, decision.sender.signatureId].join("\n"))
    .digest("hex");
  // A mail addressed only by the envelope was never proven to be meant for this agent: the same signed message
  // starts at most one run in the whole deployment, so a replayer cannot fan it out to every agent. (Copies in
  // one SES delivery, to two agents the sender named, are that delivery, not a replay.)
  const scope = decision.addressing.kind === "envelope" ? ENVELOPE_REPLAY_SCOPE : decision.agent.address;
  return (await deps.claimSignedMessage(scope, key, event.sesMessageId)) === "replay";
}

/** The replay scope of envelope-addressed mail: one for the deployment, where agents' scopes are their address. */
const ENVELOPE_REPLAY_SCOPE = "*envelope*";

/**
 * A notice for a refusal (G6). The text is engine-written from the reason code alone; it comes from the address
 * the sender wrote to (the agent), or postmaster at that domain for an unknown address; its hop is inbound + 1.
 */
function noticeFor(
  event: InboundEvent,
  recipient: string,
  decision: Extract<Decision, { verdict: "refuse" | "drop" }>,
): OutboundRequest | null {
  const reason = noticeReasonFor(decision.reason, decision.detail);
  if (!reason || !decision.sender) return null;
  const domain = recipient.slice(recipient.lastIndexOf("@") + 1);
  return noticeRequest({
    requestId: `notice-${createHash("sha256").update(`${event.sesMessageId}|${recipient}`).digest("hex").slice(0, 32)}`,
    from: decision.agent?.address ?? postmasterOf(domain).address,
    to: decision.sender,
    reason,
    inboundHop: decision.hop,
    correlationId: event.sesMessageId,
  });
}
