// Runs one provider × flow: builds the mail in the provider's shape, signs it with the test key under the
// provider's selector, and lets verify (over the in-memory fakes) judge it; then reads what verify stored as the
// outbound reply-all would. The h= is written exactly as seen, oversigned and absent names included
// (test/helpers/manual-dkim.ts): mailauth's signer (signMessage) signs each present field once, in its own order,
// so `from:from` or a `cc` named for a mail without one would not be the shape the provider writes.

import { replyAudience } from "../../shared/gate/index.ts";
import { zoneRecordFor } from "../../shared/mail/dkim-sign.ts";
import { replyAllRecipients, routingKey } from "../../shared/mail/index.ts";
import { type Zone, type ZoneResolver, zoneResolver } from "../../shared/runtime/zone-resolver.ts";
import { agent, DOMAIN } from "../fakes/builders.ts";
import type { TestKeys } from "../helpers/dkim-test-keys.ts";
import { signManually } from "../helpers/manual-dkim.ts";
import { verifyWorld } from "../helpers/verify-world.ts";
import {
  headerNames,
  isListOnly,
  type ListShape,
  type ProviderShape,
  type SenderShape,
  type Shape,
} from "./fixtures.ts";
import type { Cell, Flow, Reach } from "./flows.ts";

export const AGENT = `helpdesk@${DOMAIN}`;
/** Subscribed to lists: the one agent for which a list's mail gets as far as sender proof. */
export const LIST_AGENT = `lists@${DOMAIN}`;
/** The mail the agent sent before the reply flow: SES's Message-ID, seen only by its recipients. */
export const SENT = {
  messageId: "0100019a7c3e5f21-8b2d4c6e-1a3f-4b5d-9e7c-2f4a6b8c0d1e-000000@email.amazonses.com",
  threadId: "thread-sent",
  subject: "Your order 4471",
  sentAt: "2026-11-29T11:00:00.000Z",
} as const;
/** Every mail says it was written at the verify clock's time (test/fakes/builders.ts NOW). */
const DATE = "Sun, 29 Nov 2026 12:00:00 +0000";
const THIRD_PARTY = "carol@northwind.example";
const FORWARDED_TO = "dave@partner.example";

const domainOf = (address: string) => address.slice(address.indexOf("@") + 1);
const signingDomain = (p: SenderShape) => p.signingDomain ?? domainOf(p.from);

/** A zone publishing the test key under every provider's own selector (and each list's). */
export function providerZone(keys: TestKeys, shapes: readonly ProviderShape[]): ZoneResolver {
  const zone: Zone = {};
  for (const p of shapes) {
    const [domain, selector] = isListOnly(p)
      ? [p.list.signer?.domain, p.list.signer?.selector]
      : [signingDomain(p), p.selector];
    if (domain && selector) Object.assign(zone, zoneRecordFor(selector, domain, keys.rsa2048.dnsTxtValue));
  }
  return zoneResolver(zone);
}

interface Mail {
  readonly to: string;
  readonly cc?: string;
  readonly subject: string;
  readonly extra?: readonly string[];
  readonly body: string;
}

function compose(p: SenderShape, h: string, m: Mail): string {
  const names = new Set(headerNames(h).map((n) => n.toLowerCase()));
  const lines = [
    `From: Alice Example <${p.from}>`,
    `To: ${m.to}`,
    ...(m.cc ? [`Cc: ${m.cc}`] : []),
    `Subject: ${m.subject}`,
    `Date: ${DATE}`,
    `Message-ID: ${p.messageId}`,
    ...(m.extra ?? []),
    "MIME-Version: 1.0",
    'Content-Type: text/plain; charset="us-ascii"',
    "Content-Transfer-Encoding: 7bit",
    // Exchange Online stamps it on every mail it signs, and signs it
    ...(names.has("x-ms-exchange-senderadcheck") ? ["X-MS-Exchange-SenderADCheck: 1"] : []),
  ];
  return `${lines.join("\r\n")}\r\n\r\n${m.body}`;
}

const sign = (keys: TestKeys, raw: string, domain: string, selector: string, h: string): Buffer =>
  signManually(raw, { domain, selector, privateKeyPem: keys.rsa2048.privateKeyPem, headers: headerNames(h) });

/** The shape a flow is signed in: a reply's for a reply, the Cc shape for a mail with a Cc, else a new mail's. */
function shapeFor(p: SenderShape, flow: Flow): Shape {
  if (flow === "reply") return p.reply;
  if (flow === "reply-all") return p.cc ?? p.fresh;
  return p.fresh;
}

/** The raw mail of a sender's flow (null when the corpus holds no such shape) and its envelope recipient. */
function build(
  keys: TestKeys,
  p: SenderShape,
  flow: Flow,
  list: ListShape,
): { raw: Buffer; rcpt: string } | null {
  const s = shapeFor(p, flow);
  if (!("h" in s)) return null;
  const signed = (m: Mail) => sign(keys, compose(p, s.h, m), signingDomain(p), p.selector, s.h);
  const agentTo = `Help Desk <${AGENT}>`;
  switch (flow) {
    case "fresh":
      return {
        rcpt: AGENT,
        raw: signed({
          to: agentTo,
          subject: "Order 4471 arrived damaged",
          body: "The lamp arrived cracked.\r\n",
        }),
      };
    case "reply": {
      const id = `<${SENT.messageId}>`;
      const threading = [
        ...(p.replyCarries.includes("in-reply-to") ? [`In-Reply-To: ${id}`] : []),
        ...(p.replyCarries.includes("references") ? [`References: ${id}`] : []),
      ];
      return {
        rcpt: AGENT,
        raw: signed({
          to: agentTo,
          subject: `${p.prefix.reply}${SENT.subject}`,
          extra: threading,
          body: "Yes, please send a replacement.\r\n",
        }),
      };
    }
    case "reply-all":
      return {
        rcpt: AGENT,
        raw: signed({
          to: agentTo,
          cc: `Bob Example <${p.colleague}>`,
          subject: "Order 4471 arrived damaged",
          body: "Bob handles our returns; please keep him in copy.\r\n",
        }),
      };
    case "forward":
      return {
        rcpt: AGENT,
        raw: signed({
          to: agentTo,
          subject: `${p.prefix.forward}Invoice 889`,
          body: `Please check this.\r\n\r\n---------- Forwarded message ---------\r\nFrom: Carol <${THIRD_PARTY}>\r\nSubject: Invoice 889\r\n\r\nPayment due Friday.\r\n`,
        }),
      };
    case "list":
      return {
        rcpt: LIST_AGENT,
        raw: distributed(
          keys,
          list,
          signed({ to: list.address, subject: "A question", body: "Has anyone seen this?\r\n" }),
        ),
      };
    case "auto-forward": {
      // The original, signed for someone else, re-delivered unchanged by that person's forwarding rule.
      const original = signed({ to: FORWARDED_TO, subject: "Quarterly numbers", body: "Attached.\r\n" });
      const added = `X-Forwarded-To: ${AGENT}\r\nX-Forwarded-For: ${FORWARDED_TO} ${AGENT}\r\n`;
      return { rcpt: AGENT, raw: Buffer.concat([Buffer.from(added), original]) };
    }
  }
}

/** What a list makes of the author's signed mail: a prefixed Subject, a footer, its List-* fields, maybe its own signature. */
function distributed(keys: TestKeys, list: ListShape, authored: Buffer): Buffer {
  const text = authored.toString("latin1");
  const split = text.indexOf("\r\n\r\n");
  const head = text.slice(0, split).replace(/^Subject: /m, `Subject: ${list.subjectPrefix}`);
  const raw = `${[...list.headers, head].join("\r\n")}\r\n\r\n${text.slice(split + 4)}${list.footer}`;
  return list.signer
    ? sign(keys, raw, list.signer.domain, list.signer.selector, list.signer.h)
    : Buffer.from(raw, "latin1");
}

/** The mail a provider's flow sends and its envelope recipient; null when the corpus holds no such shape. */
export function mailFor(
  keys: TestKeys,
  p: ProviderShape,
  flow: Flow,
  shapes: readonly ProviderShape[],
): { raw: Buffer; rcpt: string; sender: SenderShape } | null | "n/a" {
  if (isListOnly(p) && flow !== "list") return "n/a";
  const sender = isListOnly(p) ? senderShape(shapes, p.author) : p;
  const list = isListOnly(p) ? p.list : defaultList(shapes);
  const built = build(keys, sender, flow, list);
  return built === null ? null : { ...built, sender };
}

function senderShape(shapes: readonly ProviderShape[], id: string): SenderShape {
  const s = shapes.find((x) => x.id === id);
  if (!s || isListOnly(s)) throw new TypeError(`no sender fixture ${id}`);
  return s;
}

/** A sender's mail reaches a list through Mailman 3 unless the row is a list's own. */
function defaultList(shapes: readonly ProviderShape[]): ListShape {
  const m = shapes.find((x) => x.id === "mailman3");
  if (!m || !isListOnly(m)) throw new TypeError("no mailman3 fixture");
  return m.list;
}

/** One cell: verify's verdict, how the mail was addressed and threaded, and whom reply-all would reach. */
export async function runCell(
  keys: TestKeys,
  resolver: ZoneResolver,
  p: ProviderShape,
  flow: Flow,
  shapes: readonly ProviderShape[],
): Promise<Cell> {
  const built = mailFor(keys, p, flow, shapes);
  if (built === "n/a") return { verdict: "n/a" };
  if (built === null) return { verdict: "not-seen" };
  const { sender } = built;
  const w = verifyWorld({
    resolver,
    admin: { agents: [agent(), agent({ address: LIST_AGENT, name: "Lists", acceptListMail: true })] },
  });
  if (flow === "reply") {
    // the conversation the sender started and the agent answered: the sender is its participant
    const sent = { to: [routingKey(sender.from)], subject: SENT.subject, sentAt: SENT.sentAt };
    await w.threads.recordMessageId(AGENT, SENT.messageId, SENT.threadId, sent);
    await w.threads.addParticipants(AGENT, SENT.threadId, [routingKey(sender.from)]);
  }
  const [summary] = await w.receive(built.raw, { recipients: [built.rcpt], mailFrom: sender.from });
  if (!summary) throw new TypeError(`${p.id}/${flow}: no decision`);
  if (summary.verdict !== "accept") return { verdict: summary.verdict, reason: summary.reason };
  const stored = [...w.messages.records.values()].find((m) => m.agent === built.rcpt && m.direction === "in");
  if (!stored?.addressing || !stored.threadedBy)
    throw new TypeError(`${p.id}/${flow}: accepted, nothing stored`);
  return {
    verdict: "accept",
    addressing: stored.addressing,
    threadedBy: stored.threadedBy,
    joined: stored.threadId === SENT.threadId,
    reaches: reachOf(stored, sender, w.deps.config),
  };
}

/** Reply-all over what verify stored, as shared/outbound/addressing.ts computes it (no outbound rules). */
function reachOf(
  stored: { from: string; to: readonly string[]; cc: readonly string[]; agent: string },
  sender: SenderShape,
  config: { domains: readonly string[]; outbound: { ownDomains: readonly string[]; maxRecipients: number } },
): Reach[] {
  const audience = replyAudience(
    { sender: stored.from, to: stored.to, cc: stored.cc },
    { agent: stored.agent, rules: [], domains: config.domains, ownDomains: config.outbound.ownDomains },
  );
  const r = replyAllRecipients({
    inboundFrom: stored.from,
    inboundTo: audience.kept.to,
    inboundCc: audience.kept.cc,
    agentAddress: stored.agent,
    max: config.outbound.maxRecipients,
  });
  if (!r.ok) throw new TypeError(`reply-all refused: ${r.reason}`);
  const role = (a: string): Reach => {
    if (routingKey(a) === routingKey(sender.from)) return "sender";
    if (routingKey(a) === routingKey(sender.colleague)) return "colleague";
    throw new TypeError(`reply-all reaches ${a}, who is in no flow`);
  };
  return [...r.to, ...r.cc, ...r.bcc].map(role);
}
