// "Addressed, once" (G2): whom did the signer write to, and how do we know?
//
// The envelope says where SES delivered a copy; only a signed header says whom the signer wrote to. A mail
// ceo@victim.example signed and sent to mallory, replayed by mallory to the agent, names mallory in its signed
// To: it is not the CEO's instruction to the agent. But the largest business mail system signs neither To nor
// Cc (Outlook.com and Exchange Online: `From:Date:Subject:Message-ID:Content-Type:MIME-Version`), and iCloud signs
// To but not Cc, so "the signed To or Cc names the agent" alone turns their users away. The rule: what the
// signature proves sets what a run may do; what it does not prove may narrow a run, never widen it.
//
// - `signed`: a To or Cc the proving signature covers names the agent. Today's rule, and the only way a run gets
//   reply-all to the signed To/Cc.
// - `reply`: an unsigned In-Reply-To/References names a Message-ID this agent sent (SES's own, which only its
//   recipients saw) to this same proven sender, the signed Subject is that mail's apart from reply prefixes, and
//   the signed Date is after the send. The mail answers the agent; it joins that thread.
// - `envelope`: SES delivered it to the agent, the agent is named in a To or Cc field the signature does not cover
//   (a covered field that does not name the agent is the signer's word that it was not addressed), and the signed
//   Date is within an hour of arrival. Verify lets such a signed message start one run in the whole deployment.
// - `bcc`: the agent opted in to mail that does not name it (`acceptBcc`), the risk that flag accepts.
// Every way but `signed` and `bcc` narrows the run: it writes to the proven sender only (the stored To/Cc are
// the signed ones, here none), so a replayed mail can at most make the agent answer its own author.

import type { AgentItem } from "../admin/index.ts";
import type { AddressingKind, SentMailLookup } from "../ports/index.ts";
import { type Fail, fail, type Ok } from "../result.ts";
import { routingKey } from "./address.ts";
import { parseAddressList } from "./address-list.ts";
import { MAX_CLOCK_SKEW_MS } from "./dkim-checks.ts";
import { type HeaderField, headerValueAsUtf8 } from "./header-block.ts";
import type { ProofVia } from "./sender-proof.ts";
import type { SignedRecipients } from "./signed-recipients.ts";

export type InboundAddressing = (
  | { readonly kind: "signed" }
  | { readonly kind: "reply" }
  | { readonly kind: "envelope"; readonly field: "to" | "cc" }
  | { readonly kind: "bcc" }
  | { readonly kind: "forwarded"; readonly sealer: string }
) & { readonly kind: AddressingKind };

/** A run started by mail addressed this way writes to its proven sender only (G2, G9). */
export const narrowsRun = (a: Pick<InboundAddressing, "kind">): boolean =>
  a.kind === "reply" || a.kind === "envelope" || a.kind === "forwarded";

/**
 * Why a mail was not addressed, as `not-addressed`'s detail (engine words, G4): the agent is named only in an
 * unsigned field but the signed Date is missing or stale, or the agent requires signed addressing.
 */
export type NotAddressedDetail = "date-unsigned" | "date-stale" | "signed-addressing-required";

/** How far from arrival a signed Date may be for envelope addressing: a replay an hour later is refused. */
export const ENVELOPE_FRESHNESS_MS = 60 * 60 * 1000;

export interface AddressingInput {
  readonly agent: AgentItem;
  readonly sender: {
    readonly routingKey: string;
    readonly signedHeaders: readonly string[];
    readonly signedRecipients: SignedRecipients;
    readonly via: ProofVia;
  };
  /** Our own reading of the header section (one instance of each single-instance field: single-instance.ts). */
  readonly fields: readonly HeaderField[];
  /** The mail's In-Reply-To and References as parsed (read only when the signature does not cover them). */
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  readonly now: Date;
  readonly allowNonAsciiLocalParts: boolean;
  readonly sentMail: SentMailLookup;
}

/** The agent's own sent mail an unsigned In-Reply-To/References was matched to: the thread the mail joins. */
export interface OwnMailReply {
  readonly messageId: string;
  readonly threadId: string;
}

export type AddressingResult =
  | Ok<{ addressing: InboundAddressing; ownMail: OwnMailReply | null }>
  | Fail<"not-addressed">;

/**
 * Whether the signed To or Cc names the agent. Compared on the routing key, so `Helpdesk+billing@Agents...` (a
 * `+tag` alias, any case) names `helpdesk@agents...` as routing does.
 */
export function addresses(signed: SignedRecipients, agentAddress: string): boolean {
  const agent = routingKey(agentAddress);
  return [...signed.to, ...signed.cc].some((a) => routingKey(a) === agent);
}

/** How the mail was addressed to this agent, proven as far as the signature goes, or `not-addressed`. */
export async function decideAddressing(input: AddressingInput): Promise<AddressingResult> {
  const { agent, sender } = input;
  const signed = new Set(sender.signedHeaders);
  // Threading by the agent's own Message-ID stands whatever addressed the mail: iCloud signs To but not
  // In-Reply-To, so its replies are addressed by the signature and threaded by this match.
  const ownMail = await answersOwnMail(input, signed);
  const found = (addressing: InboundAddressing): AddressingResult => ({ ok: true, addressing, ownMail });
  // Forwarded or list mail proven by trusted ARC sealers: the seal proves the author, never whom they wrote to
  // (the list's own To names the list); the trusted forwarder's delivery addressed the agent, and the run is narrowed.
  if (sender.via.kind === "arc")
    return agent.requireSignedAddressing
      ? fail("not-addressed", "signed-addressing-required")
      : found({ kind: "forwarded", sealer: sender.via.sealer });
  if (addresses(sender.signedRecipients, agent.address)) return found({ kind: "signed" });
  const bcc = (detail?: NotAddressedDetail): AddressingResult =>
    agent.acceptBcc ? found({ kind: "bcc" }) : fail("not-addressed", detail);
  // An agent with tools that act may ask for the signer's own word on whom it wrote to.
  if (agent.requireSignedAddressing) return bcc("signed-addressing-required");
  if (ownMail !== null) return found({ kind: "reply" });
  const field = namedUnsigned(input, signed);
  if (field === null) return bcc();
  const freshness = signedDateFreshness(input.fields, signed, input.now);
  return freshness === null ? found({ kind: "envelope", field }) : bcc(freshness);
}

/** The unsigned To or Cc field that names the agent (strict parser, as for the signed ones), if any. */
function namedUnsigned(input: AddressingInput, signed: ReadonlySet<string>): "to" | "cc" | null {
  const agent = routingKey(input.agent.address);
  for (const name of ["to", "cc"] as const) {
    if (signed.has(name)) continue;
    const value = fieldValue(input.fields, name);
    if (value === null) continue;
    const list = parseAddressList(value, { allowNonAsciiLocalParts: input.allowNonAsciiLocalParts });
    if (list.addresses.some((m) => routingKey(m.address) === agent)) return name;
  }
  return null;
}

/** Null when the signed Date is within the freshness window of arrival; otherwise why not. */
function signedDateFreshness(
  fields: readonly HeaderField[],
  signed: ReadonlySet<string>,
  now: Date,
): NotAddressedDetail | null {
  const at = signedDate(fields, signed);
  if (at === null) return "date-unsigned";
  return Math.abs(now.getTime() - at) <= ENVELOPE_FRESHNESS_MS ? null : "date-stale";
}

/** The Date field's time when the signature covers it and it parses (RFC 5322 §3.3), else null. */
function signedDate(fields: readonly HeaderField[], signed: ReadonlySet<string>): number | null {
  if (!signed.has("date")) return null;
  const value = fieldValue(fields, "date");
  const at = value === null ? Number.NaN : Date.parse(value);
  return Number.isNaN(at) ? null : at;
}

/**
 * A reply to mail this agent sent, matched on what the signature proves around the unsigned threading fields:
 * the named Message-ID is SES's (unguessable, seen only by the mail's recipients), the proven sender was one of
 * those recipients, the signed Subject is that mail's with reply prefixes, and the signed Date is after the send.
 */
async function answersOwnMail(
  input: AddressingInput,
  signed: ReadonlySet<string>,
): Promise<OwnMailReply | null> {
  if (signed.has("in-reply-to") && signed.has("references")) return null;
  if (!signed.has("subject")) return null;
  const date = signedDate(input.fields, signed);
  if (date === null) return null;
  const named = [
    ...(signed.has("in-reply-to") || input.inReplyTo === null ? [] : [input.inReplyTo]),
    ...(signed.has("references") ? [] : [...input.references].reverse()),
  ]
    .map(bare)
    .filter((id) => id !== "");
  if (named.length === 0) return null;
  const subject = subjectStem(fieldValue(input.fields, "subject") ?? "");
  for (const sent of await input.sentMail(input.agent.address, named)) {
    if (!sent.to.includes(input.sender.routingKey)) continue;
    if (subjectStem(sent.subject) !== subject) continue;
    // Written after the send, up to the clock skew tolerated for DKIM's t= (and Date has whole seconds only).
    if (!(date > Date.parse(sent.sentAt) - MAX_CLOCK_SKEW_MS)) continue;
    return { messageId: sent.messageId, threadId: sent.threadId };
  }
  return null;
}

/**
 * A subject without its reply prefixes (`Re:`, `RE:`, `AW:`, `SV:`, `回复:`, `Re[2]:`, any short word and a colon,
 * as clients in every language write them), whitespace collapsed, case folded. Both sides are reduced alike, so a
 * prefix this does not know only makes the match fail (a new thread), never succeed wrongly.
 */
export function subjectStem(subject: string): string {
  let s = subject.normalize("NFKC").replace(/\s+/g, " ").trim();
  for (let i = 0; i < 10; i++) {
    const next = s.replace(/^[\p{L}]{1,10}(?:\s?\[\d{1,3}\])?\s?[:：]\s*/u, "");
    if (next === s) break;
    s = next;
  }
  return s.toLowerCase();
}

/** A Message-ID as the index keys it: without its angle brackets. */
const bare = (id: string): string =>
  id
    .trim()
    .replace(/^<(.*)>$/, "$1")
    .trim();

/** The one instance of a field (single-instance.ts refused two), unfolded and read as UTF-8, or null. */
function fieldValue(fields: readonly HeaderField[], name: string): string | null {
  const field = fields.find((f) => f.name === name);
  return field === undefined ? null : headerValueAsUtf8(field.value);
}
