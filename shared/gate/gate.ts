import type { DNSResolver } from "mailauth";
import type { AdminSnapshot, AgentItem } from "../admin/schema.ts";
import type { DeploymentConfig } from "../config/schema.ts";
import { checkHeaderSize, checkMessageSize, type LimitReason } from "../mail/limits.ts";
import { type ParsedMail, parseMail } from "../mail/parse.ts";
import { decideAccess } from "./access.ts";
import { addresses } from "./addressed.ts";
import { headerSectionBytes, readHeaderBlock } from "./header-block.ts";
import { inboundHop, type LoopReason, loopGuard } from "./loop-guard.ts";
import { type Route, routeRecipients } from "./routing.ts";
import { proveSender, type SenderProof, type SenderRefusal } from "./sender-proof.ts";
import type { SignedRecipients } from "./signed-recipients.ts";

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
}

export interface ProvenSender {
  readonly address: string;
  readonly routingKey: string;
  readonly domain: string;
  readonly displayName: string;
  /** sha256 of the proving signature's b=: the same signed message, whoever relays it. */
  readonly signatureId: string;
  /** To and Cc as the proving signature covers them: who the signer addressed (reply-all writes only here). */
  readonly signedRecipients: SignedRecipients;
}

/** Refusal and drop codes, stable: operators, notices and tests key on them. */
export type GateReason =
  | "foreign-recipient"
  | Extract<Route, { kind: "unknown" }>["reason"]
  | LimitReason
  | LoopReason
  | SenderRefusal
  | "not-addressed"
  | "access-denied-global"
  | "access-denied";

/** One decision per envelope recipient. Reason codes are stable: operators and tests key on them. */
export type Decision =
  | {
      readonly verdict: "accept";
      readonly recipient: string;
      readonly agent: AgentItem;
      readonly reason: "accepted";
      readonly sender: ProvenSender;
      readonly hop: number;
    }
  | {
      readonly verdict: "refuse" | "drop";
      readonly recipient: string;
      readonly agent: AgentItem | null;
      readonly reason: GateReason;
      /** Routing key if the sender was proven, else the From address reduced to address characters, or null. */
      readonly sender: string | null;
      readonly proven: boolean;
      /** Send a notice (G6): only to a proven sender, only for refusals, never to automatic mail. */
      readonly notify: boolean;
      /** Inbound X-Postern-Recursion (0 when absent or unreadable): a notice stamps hop + 1. */
      readonly hop: number;
    };

export type Refusal = Extract<Decision, { readonly verdict: "refuse" | "drop" }>;

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
  const out = { decisions, mail: null as ParsedMail | null, proof: null as SenderProof | null };
  let automatic = true;
  let inHop = 0;
  const refusal = (recipient: string, agent: AgentItem | null, reason: GateReason, hop = inHop): Refusal => {
    const p = out.proof;
    return {
      verdict: "refuse",
      recipient,
      agent,
      reason,
      sender: p === null ? null : p.ok ? p.routingKey : p.address,
      proven: p?.ok ?? false,
      notify: (p?.ok ?? false) && !automatic,
      hop,
    };
  };
  const drop = (recipient: string, agent: AgentItem | null, reason: GateReason): Refusal => ({
    ...refusal(recipient, agent, reason),
    verdict: "drop",
    notify: false,
  });
  // G1: an unknown local part at a registered domain is refused, never processed; decided last, on what the
  // agents' decisions proved.
  const finish = (): GateResult => {
    for (const r of routes) if (r.kind === "unknown") decisions.push(refusal(r.recipient, null, r.reason));
    return out;
  };

  for (const r of routes)
    if (r.kind === "foreign") decisions.push(drop(r.recipient, null, "foreign-recipient"));
  if (agentRoutes.length === 0) return finish();

  // G7, first the free checks: the raw size, then the header section's, before a header line is read.
  const size = checkMessageSize(raw.byteLength, config.attachments);
  const headerSize = size.ok ? checkHeaderSize(headerSectionBytes(raw), config.attachments) : size;
  if (!headerSize.ok) {
    for (const r of agentRoutes) decisions.push(refusal(r.recipient, r.agent, headerSize.reason));
    return finish();
  }

  // Headers as we read them ourselves (not postal-mime): used by the loop guard before anything is parsed. An
  // unreadable block is treated as automatic mail (never notified) and refused by sender proof (header-malformed).
  const block = readHeaderBlock(raw);
  const headers = block.ok ? block.fields.map((f) => ({ key: f.name, value: f.value })) : [];
  automatic =
    !block.ok ||
    !loopGuard(headers, envelope.mailFrom, Number.MAX_SAFE_INTEGER, {
      acceptAutoSubmitted: false,
      acceptListMail: false,
    }).ok;
  inHop = block.ok ? (inboundHop(headers) ?? 0) : 0;

  // G5: loops and automatic mail are dropped silently, per agent (an agent may opt in to automatic mail).
  const live: { recipient: string; agent: AgentItem; hop: number }[] = [];
  for (const r of agentRoutes) {
    const loop = loopGuard(headers, envelope.mailFrom, config.recursionLimit, {
      acceptAutoSubmitted: r.agent.acceptAutoSubmitted,
      acceptListMail: r.agent.acceptListMail,
    });
    if (!loop.ok) decisions.push(drop(r.recipient, r.agent, loop.reason));
    else live.push({ recipient: r.recipient, agent: r.agent, hop: loop.hop });
  }
  if (live.length === 0) return finish();

  // G2: sender proof before any text counts; its cost is bounded whatever the header holds (sender-proof.ts).
  const p = await proveSender(raw, {
    resolver: input.resolver,
    now: input.now,
    minRsaKeyBits: config.senderProof.minRsaKeyBits,
    allowNonAsciiLocalParts: config.senderProof.allowNonAsciiLocalParts,
    maxSignatures: config.senderProof.maxSignatures,
    keyLookupTimeoutMs: config.senderProof.keyLookupTimeoutMs,
  });
  out.proof = p;
  if (!p.ok) {
    for (const l of live) decisions.push(refusal(l.recipient, l.agent, p.reason, l.hop));
    return finish();
  }

  // G7: the parser runs under the limits; a hostile MIME tree is refused before postal-mime sees it.
  const parsed = await parseMail(raw, config.attachments);
  if (!parsed.ok) {
    for (const l of live) decisions.push(refusal(l.recipient, l.agent, parsed.reason, l.hop));
    return finish();
  }
  out.mail = parsed.mail;
  const sender: ProvenSender = {
    address: p.address,
    routingKey: p.routingKey,
    domain: p.domain,
    displayName: p.displayName,
    signatureId: p.signature.id,
    signedRecipients: p.signedRecipients,
  };

  for (const l of live) {
    // G3: committed ceiling AND the agent's own rules, on the routing key.
    const rules = admin.accessRules.filter((r) => r.agent === l.agent.address);
    const access = decideAccess(sender.routingKey, config.inboundAccess, rules);
    if (!access.allowed) {
      const reason = access.layer === "ceiling" ? "access-denied-global" : "access-denied";
      decisions.push(refusal(l.recipient, l.agent, reason, l.hop));
      continue;
    }
    // G2: the signer must have addressed the agent, or a mail signed for someone else is replayed to it.
    if (!l.agent.acceptBcc && !addresses(sender.signedRecipients, l.agent.address)) {
      decisions.push(refusal(l.recipient, l.agent, "not-addressed", l.hop));
      continue;
    }
    decisions.push({
      verdict: "accept",
      recipient: l.recipient,
      agent: l.agent,
      reason: "accepted",
      sender,
      hop: l.hop,
    });
  }
  return finish();
}
