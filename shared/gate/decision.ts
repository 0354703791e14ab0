import type { AgentItem } from "../admin/index.ts";
import type { LimitReason } from "../mail/index.ts";
import type { InboundAddressing, OwnMailReply } from "./addressed.ts";
import type { LoopReason } from "./loop-guard.ts";
import type { Route } from "./routing.ts";
import type { ProofVia, SenderProof, SenderRefusal } from "./sender-proof.ts";
import type { SignedRecipients } from "./signed-recipients.ts";

/**
 * The gate's one decision per envelope recipient, and how each is built: a refusal says no more about the sender
 * than the gate had proven when it refused, and only a proven sender of mail that is not automatic is notified.
 */

export interface ProvenSender {
  readonly address: string;
  readonly routingKey: string;
  readonly domain: string;
  readonly displayName: string;
  /** sha256 of the proving signature's b=: the same signed message, whoever relays it. */
  readonly signatureId: string;
  /**
   * Field names the proving signature's h= covers, lower-case. With no single-instance field twice
   * (single-instance.ts), a field named here is the signed one: threading reads only these.
   */
  readonly signedHeaders: readonly string[];
  /** To and Cc as the proving signature covers them: who the signer addressed (reply-all writes only here). */
  readonly signedRecipients: SignedRecipients;
  /** What proved the author: its own DKIM signature (or a delegated signer's), or trusted ARC sealers. */
  readonly via: ProofVia;
}

/** Refusal and drop codes, stable: operators, notices and tests key on them. */
export type GateReason =
  | "foreign-recipient"
  | Extract<Route, { kind: "unknown" }>["reason"]
  | LimitReason
  | LoopReason
  | SenderRefusal
  | "self-sender" // proven to come from the agent's own address (dropped, never notified)
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
      /** How the mail was addressed to the agent, as far as the signature proves it (addressed.ts). */
      readonly addressing: InboundAddressing;
      /** Mail the agent sent that an unsigned In-Reply-To/References was matched to: the thread it joins. */
      readonly ownMail: OwnMailReply | null;
      readonly hop: number;
      /**
       * Automatic mail (G5) to an agent that opted in to it: it may start a run, but the engine never writes to
       * its sender unasked (G6: no notice when that run fails). Absent on a decision recorded before the field existed.
       */
      readonly automatic?: boolean;
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
      /** Engine-written detail of the reason (the duplicated field's name), never sender text (G4). */
      readonly detail?: string;
    };

export type Refusal = Extract<Decision, { readonly verdict: "refuse" | "drop" }>;

/** An agent's route that passed the loop guard (G5), with the inbound hop its decision carries. */
export interface LiveRoute {
  readonly recipient: string;
  readonly agent: AgentItem;
  readonly hop: number;
}

/** What the gate knew when it refused; the gate learns it in order, and a refusal says no more than that (G6). */
export interface Known {
  proof: SenderProof | null;
  /** Automatic mail (or a header block we cannot read): assumed until the headers have been read. */
  automatic: boolean;
  /** Inbound X-Postern-Recursion: 0 until read, and when absent or unreadable. */
  hop: number;
}

/**
 * Names the sender only as far as it was proven (its routing key, else the From address reduced to address
 * characters, G4), and is notified (G6) only to a proven sender, never for automatic mail.
 */
export function refusal(
  known: Known,
  recipient: string,
  agent: AgentItem | null,
  reason: GateReason,
  hop = known.hop,
  ownDetail?: string,
): Refusal {
  const p = known.proof;
  // the proof's own detail, when this refusal is the proof's (a field name from our list: engine text, G4)
  const detail = ownDetail ?? (p !== null && !p.ok && p.reason === reason ? p.detail : undefined);
  return {
    verdict: "refuse",
    recipient,
    agent,
    reason,
    sender: p === null ? null : p.ok ? p.routingKey : p.address,
    proven: p?.ok ?? false,
    notify: (p?.ok ?? false) && !known.automatic,
    hop,
    ...(detail !== undefined ? { detail } : {}),
  };
}

/** Dropped silently, never notified: foreign recipients, loops and automatic mail (G5). */
export function drop(known: Known, recipient: string, agent: AgentItem | null, reason: GateReason): Refusal {
  return { ...refusal(known, recipient, agent, reason), verdict: "drop", notify: false };
}

export function accepted(
  route: LiveRoute,
  sender: ProvenSender,
  addressed: { readonly addressing: InboundAddressing; readonly ownMail: OwnMailReply | null },
  automatic = false,
): Decision {
  return {
    verdict: "accept",
    recipient: route.recipient,
    agent: route.agent,
    reason: "accepted",
    sender,
    addressing: addressed.addressing,
    ownMail: addressed.ownMail,
    hop: route.hop,
    ...(automatic ? { automatic: true } : {}),
  };
}

/** The accepted sender as decisions carry it: what the proof established, and the proving signature's id. */
export function provenSender(p: Extract<SenderProof, { ok: true }>): ProvenSender {
  return {
    address: p.address,
    routingKey: p.routingKey,
    domain: p.domain,
    displayName: p.displayName,
    signatureId: p.signature.id,
    signedHeaders: p.signature.signedHeaders,
    signedRecipients: p.signedRecipients,
    via: p.via,
  };
}
