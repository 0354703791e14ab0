import type { DNSResolver } from "mailauth";
import type { AdminSnapshot, AgentItem } from "../admin/schema.ts";
import type { DeploymentConfig } from "../config/schema.ts";
import { type ParsedMail, parseMail } from "../mail/parse.ts";
import { decideAccess } from "./access.ts";
import { readHeaderBlock } from "./header-block.ts";
import { checkMessageSize } from "./limits.ts";
import { inboundHop, loopGuard } from "./loop-guard.ts";
import { routeRecipients } from "./routing.ts";
import { proveSender, type SenderProof } from "./sender-proof.ts";

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
}

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
      readonly reason: string;
      /** Routing key if the sender was proven, else the From address reduced to address characters, or null. */
      readonly sender: string | null;
      readonly proven: boolean;
      /** Send a notice (G6): only to a proven sender, only for refusals, never to automatic mail. */
      readonly notify: boolean;
      /** Inbound X-Postern-Recursion (0 when absent or unreadable): a notice stamps hop + 1. */
      readonly hop: number;
    };

export interface GateResult {
  readonly decisions: readonly Decision[];
  /** The parsed message, present when it passed the limits (needed to store an accepted message). */
  readonly mail: ParsedMail | null;
  readonly proof: SenderProof | null;
}

/**
 * The inbound gate (G1-G7), cheapest check first: routing, size, loop guard, bounded MIME parse, sender proof,
 * access. Nothing here reads the body to decide, and nothing trusts a header SES or the sender wrote about
 * authentication. Every recipient gets an independent decision.
 */
export async function gateMessage(input: GateInput): Promise<GateResult> {
  const { raw, envelope, config, admin } = input;
  const routes = routeRecipients(envelope.recipients, config.domains, admin.agents);
  const agentRoutes = routes.filter((r) => r.kind === "agent");
  const decisions: Decision[] = [];
  const out = { decisions, mail: null as ParsedMail | null, proof: null as SenderProof | null };
  // Proof is computed at most once, and only when a decision needs it (a verdict or a notice).
  let proof: SenderProof | null = null;
  let inHop = 0;
  const prove = async (): Promise<SenderProof> => {
    proof ??= await proveSender(raw, {
      resolver: input.resolver,
      now: input.now,
      minRsaKeyBits: config.senderProof.minRsaKeyBits,
      allowNonAsciiLocalParts: config.senderProof.allowNonAsciiLocalParts,
    });
    out.proof = proof;
    return proof;
  };
  const senderOf = (p: SenderProof): string | null => (p.ok ? p.routingKey : p.address);
  const refuse = async (
    recipient: string,
    agent: AgentItem | null,
    reason: string,
    automatic: boolean,
  ): Promise<Decision> => {
    const p = await prove();
    return {
      verdict: "refuse",
      recipient,
      agent,
      reason,
      sender: senderOf(p),
      proven: p.ok,
      notify: p.ok && !automatic,
      hop: inHop,
    };
  };
  const drop = (recipient: string, agent: AgentItem | null, reason: string): Decision => ({
    verdict: "drop",
    recipient,
    agent,
    reason,
    sender: proof ? senderOf(proof) : null,
    proven: proof?.ok ?? false,
    notify: false,
    hop: inHop,
  });

  for (const r of routes)
    if (r.kind === "foreign") decisions.push(drop(r.recipient, null, "foreign-recipient"));
  if (agentRoutes.length === 0 && !routes.some((r) => r.kind === "unknown")) return out;

  // Headers as we read them ourselves (not postal-mime): used by the loop guard before anything is parsed. An
  // unreadable block is treated as automatic mail (never notified) and refused by sender proof (header-malformed).
  const block = readHeaderBlock(raw);
  const headers = block.ok ? block.fields.map((f) => ({ key: f.name, value: f.value })) : [];
  const automatic = !block.ok || !loopGuard(headers, envelope.mailFrom, Number.MAX_SAFE_INTEGER, false).ok;
  inHop = block.ok ? (inboundHop(headers) ?? 0) : 0;

  // G1: an unknown local part at a registered domain is refused, never processed.
  for (const r of routes)
    if (r.kind === "unknown") decisions.push(await refuse(r.recipient, null, r.reason, automatic));
  if (agentRoutes.length === 0) return out;

  // G7, first the free check: the raw size.
  const size = checkMessageSize(raw.byteLength, config.attachments);
  if (!size.ok) {
    for (const r of agentRoutes) decisions.push(await refuse(r.recipient, r.agent, size.reason, automatic));
    return out;
  }
  // G5: loops and automatic mail are dropped silently, per agent (an agent may opt in to automatic mail).
  const live: { recipient: string; agent: AgentItem; hop: number }[] = [];
  for (const r of agentRoutes) {
    const loop = loopGuard(headers, envelope.mailFrom, config.recursionLimit, r.agent.acceptAutoSubmitted);
    if (!loop.ok) decisions.push(drop(r.recipient, r.agent, loop.reason));
    else live.push({ recipient: r.recipient, agent: r.agent, hop: loop.hop });
  }
  if (live.length === 0) return out;

  // G7: the parser runs under the limits; a hostile MIME tree is refused before postal-mime sees it.
  const parsed = await parseMail(raw, config.attachments);
  if (!parsed.ok) {
    for (const l of live) decisions.push(await refuse(l.recipient, l.agent, parsed.reason, automatic));
    return out;
  }
  out.mail = parsed.mail;

  // G2: sender proof before any text counts.
  const p = await prove();
  if (!p.ok) {
    for (const l of live)
      decisions.push({
        verdict: "refuse",
        recipient: l.recipient,
        agent: l.agent,
        reason: p.reason,
        sender: p.address,
        proven: false,
        notify: false,
        hop: l.hop,
      });
    return out;
  }
  const sender: ProvenSender = {
    address: p.address,
    routingKey: p.routingKey,
    domain: p.domain,
    displayName: p.displayName,
  };

  // G3: committed ceiling AND the agent's own rules, on the routing key.
  for (const l of live) {
    const rules = admin.accessRules.filter((r) => r.agent === l.agent.address);
    const access = decideAccess(sender.routingKey, config.inboundAccess, rules);
    if (!access.allowed) {
      decisions.push({
        verdict: "refuse",
        recipient: l.recipient,
        agent: l.agent,
        reason: access.layer === "ceiling" ? "access-denied-global" : "access-denied",
        sender: sender.routingKey,
        proven: true,
        notify: !automatic,
        hop: l.hop,
      });
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
  return out;
}
