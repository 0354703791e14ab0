import type { DNSResolver } from "mailauth";
import type { AccessRuleItem, AdminSnapshot, AgentItem } from "../admin/index.ts";
import type { AccessRule, DeploymentConfig } from "../config/index.ts";
import {
  type AttachmentLimits,
  checkHeaderSize,
  checkMessageSize,
  type LimitReason,
  type ParsedMail,
  parseMail,
} from "../mail/index.ts";
import type { SentMailLookup } from "../ports/index.ts";
import { decideAccess } from "./access.ts";
import { routingKey } from "./address.ts";
import { decideAddressing } from "./addressed.ts";
import {
  accepted,
  type Decision,
  drop,
  type GateReason,
  type Known,
  type LiveRoute,
  type ProvenSender,
  provenSender,
  refusal,
} from "./decision.ts";
import { type HeaderField, headerSectionBytes, readHeaderBlock } from "./header-block.ts";
import { loopGuard, readLoopHeaders } from "./loop-guard.ts";
import { routeRecipients } from "./routing.ts";
import { type ProveSenderOptions, proveSender, type SenderProof } from "./sender-proof.ts";

export type { InboundAddressing } from "./addressed.ts";
export type { Decision, GateReason, ProvenSender, Refusal } from "./decision.ts";

/** What the SES receipt notification tells us (never the headers: Bcc'd agents exist only here). */
export interface Envelope {
  readonly sesMessageId: string;
  readonly recipients: readonly string[];
  /** MAIL FROM; "" or null for the null return path (bounces). */
  readonly mailFrom: string | null;
}

export interface GateInput {
  readonly raw: Buffer;
  readonly envelope: Envelope;
  readonly config: DeploymentConfig;
  readonly admin: AdminSnapshot;
  readonly resolver: DNSResolver;
  readonly now: Date;
  /**
   * Mail the agent sent, by Message-ID: an unsigned In-Reply-To/References counts only when it names one sent to
   * this same proven sender (addressed.ts). `postern check` without a stack passes one that finds nothing.
   */
  readonly sentMail: SentMailLookup;
}

export interface GateResult {
  readonly decisions: readonly Decision[];
  /** The parsed message, present when it passed the limits (needed to store an accepted message). */
  readonly mail: ParsedMail | null;
  readonly proof: SenderProof | null;
}

/**
 * The inbound gate (G1-G7), cheapest check first: routing, size, header size, loop guard, sender proof, bounded
 * MIME parse, access, addressing. Nothing here reads the body to decide, and nothing trusts a header SES or the
 * sender wrote about authentication. Every recipient gets an independent decision.
 *
 * Sender proof runs once, and only for mail that passed every cheap check: a refusal before it is never proven
 * and never notified. Whether a refusal is notified is decided from what was already proven, never by proving
 * more (an unknown address is notified only when the same mail also reached an agent and proved its sender).
 */
export async function gateMessage(input: GateInput): Promise<GateResult> {
  const { raw, envelope, config, admin } = input;
  const routes = routeRecipients(envelope.recipients, config.domains, admin.agents);
  const agentRoutes = routes.filter((r) => r.kind === "agent");
  const decisions: Decision[] = [];
  const known: Known = { proof: null, automatic: true, hop: 0 };
  let mail: ParsedMail | null = null;
  // G1: an unknown local part at a registered domain is refused, never processed; decided last, on what the
  // agents' decisions proved.
  const finish = (): GateResult => {
    for (const r of routes)
      if (r.kind === "unknown") decisions.push(refusal(known, r.recipient, null, r.reason));
    return { decisions, mail, proof: known.proof };
  };

  for (const r of routes)
    if (r.kind === "foreign") decisions.push(drop(known, r.recipient, null, "foreign-recipient"));
  if (agentRoutes.length === 0) return finish();

  const tooLarge = sizeRefusal(raw, config.attachments);
  if (tooLarge !== null) {
    for (const r of agentRoutes) decisions.push(refusal(known, r.recipient, r.agent, tooLarge));
    return finish();
  }

  const headers = readLoopHeaders(raw, envelope.mailFrom);
  known.automatic = headers.automatic;
  known.hop = headers.hop;

  const live = loopChecked(agentRoutes, headers.fields, input, (recipient, agent, reason) =>
    decisions.push(drop(known, recipient, agent, reason)),
  );
  if (live.length === 0) return finish();

  // G2: sender proof before any text counts; its cost is bounded whatever the header holds (sender-proof.ts).
  const p = await proveSender(raw, proofOptions(input));
  known.proof = p;
  if (!p.ok) {
    for (const l of live) decisions.push(refusal(known, l.recipient, l.agent, p.reason, l.hop));
    return finish();
  }

  // G7: the parser runs under the limits; a hostile MIME tree is refused before postal-mime sees it.
  const parsed = await parseMail(raw, config.attachments);
  if (!parsed.ok) {
    for (const l of live) decisions.push(refusal(known, l.recipient, l.agent, parsed.reason, l.hop));
    return finish();
  }
  mail = parsed.mail;
  const sender = provenSender(p);

  // Our reading of the header section again (sender proof read it, and refused it unless it was well formed):
  // the unsigned To/Cc, the signed Date and Subject that addressing may rest on.
  const block = readHeaderBlock(raw);
  const fields = block.ok ? block.fields : [];

  // The agent's own rules, on the proven sender: itself (never), access (G3), then addressing (G2).
  for (const l of live) decisions.push(await agentDecision(l, { input, known, sender, fields, mail }));
  return finish();
}

/** G5: loops and automatic mail are dropped silently, per agent (an agent may opt in to automatic mail). */
function loopChecked(
  agentRoutes: readonly { readonly recipient: string; readonly agent: AgentItem }[],
  fields: Parameters<typeof loopGuard>[0],
  input: GateInput,
  dropped: (recipient: string, agent: AgentItem, reason: GateReason) => void,
): LiveRoute[] {
  const live: LiveRoute[] = [];
  for (const r of agentRoutes) {
    const loop = loopGuard(fields, input.envelope.mailFrom, input.config.recursionLimit, {
      acceptAutoSubmitted: r.agent.acceptAutoSubmitted,
      acceptListMail: r.agent.acceptListMail,
    });
    if (!loop.ok) dropped(r.recipient, r.agent, loop.reason);
    else live.push({ recipient: r.recipient, agent: r.agent, hop: loop.hop });
  }
  return live;
}

/** One live agent's decision on a proven sender: itself (never), access (G3), then addressing (G2). */
async function agentDecision(
  l: LiveRoute,
  c: {
    readonly input: GateInput;
    readonly known: Known;
    readonly sender: ProvenSender;
    readonly fields: readonly HeaderField[];
    readonly mail: ParsedMail;
  },
): Promise<Decision> {
  const { input, known, sender } = c;
  const { config } = input;
  // dropped, never notified: a notice would go from the agent to itself
  if (isSelf(sender, l.agent)) return drop(known, l.recipient, l.agent, "self-sender");
  const denied = accessRefusal(sender.routingKey, l.agent, config.inboundAccess, input.admin.accessRules);
  if (denied !== null) return refusal(known, l.recipient, l.agent, denied, l.hop);
  const addressed = await decideAddressing({
    agent: l.agent,
    sender,
    fields: c.fields,
    inReplyTo: c.mail.inReplyTo,
    references: c.mail.references,
    now: input.now,
    allowNonAsciiLocalParts: config.senderProof.allowNonAsciiLocalParts,
    sentMail: input.sentMail,
  });
  return addressed.ok
    ? accepted(l, sender, addressed, known.automatic)
    : refusal(known, l.recipient, l.agent, addressed.reason, l.hop, addressed.detail);
}

/** G7, first the free checks: the raw size, then the header section's, before a header line is read. */
function sizeRefusal(raw: Buffer, limits: AttachmentLimits): LimitReason | null {
  const size = checkMessageSize(raw.byteLength, limits);
  const headerSize = size.ok ? checkHeaderSize(headerSectionBytes(raw), limits) : size;
  return headerSize.ok ? null : headerSize.reason;
}

function proofOptions(input: GateInput): ProveSenderOptions {
  const { senderProof } = input.config;
  return {
    resolver: input.resolver,
    now: input.now,
    minRsaKeyBits: senderProof.minRsaKeyBits,
    allowNonAsciiLocalParts: senderProof.allowNonAsciiLocalParts,
    maxSignatures: senderProof.maxSignatures,
    keyLookupTimeoutMs: senderProof.keyLookupTimeoutMs,
    trustedArcSealers: senderProof.trustedArcSealers,
    delegatedSigners: senderProof.delegatedSigners,
  };
}

/** G3: the committed ceiling AND the agent's own rules, on the routing key. */
function accessRefusal(
  routingKey: string,
  agent: AgentItem,
  ceiling: readonly AccessRule[],
  accessRules: readonly AccessRuleItem[],
): "access-denied-global" | "access-denied" | null {
  const rules = accessRules.filter((r) => r.agent === agent.address);
  const access = decideAccess(routingKey, ceiling, rules);
  if (access.allowed) return null;
  return access.layer === "ceiling" ? "access-denied-global" : "access-denied";
}

/**
 * Mail proven to come from the agent itself starts no run. Its own mail is in every thread it
 * answered, so a run "with the sender's own eyes" (G12) would see nearly its whole archive; a mail that
 * reaches the agent from its own address is a loop, a forwarding rule or a replay of its own outbound mail,
 * never someone asking. Compared on the routing key: `Desk+x@Agents...` is the agent too.
 */
function isSelf(sender: ProvenSender, agent: AgentItem): boolean {
  return sender.routingKey === routingKey(agent.address);
}
