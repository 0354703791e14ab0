import { type Fail, fail, type Ok } from "../result.ts";
import { routingKey } from "./routing-key.ts";

/**
 * Who an agent's mail goes to (G9). Model-supplied addresses must be plain addr-specs; the original sender of a
 * reply is always in To; the agent never writes to itself (compared by routing key, so `Helpdesk+x@Agents...`
 * is the agent too); the total is capped and an over-cap list is refused, never silently truncated.
 */

export type RecipientReason = "recipient-invalid" | "too-many-recipients" | "no-recipients";
/** `detail`: the refused address (reduced to printable ASCII), or the count over the cap. */
export type RecipientFailure = Fail<RecipientReason>;

export interface Recipients {
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
}

export type RecipientsResult = Ok<Recipients & { readonly dropped: readonly string[] }> | RecipientFailure;

/** RFC 5321 §4.5.3.1: 64 octets of local part, 254 for the whole path. */
const MAX_LOCAL = 64;
const MAX_ADDRESS = 254;
/**
 * RFC 5322 dot-atom local part and an LDH host name with an alphabetic TLD, ASCII only. Deliberately no quoted
 * local parts, comments, display names, domain literals or encoded-words: what we accept must mean one thing to
 * SES and to every MUA, and nothing in it can open a new header line.
 */
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export type AddrSpecResult = Ok<{ readonly address: string }> | Fail<"recipient-invalid">;

/** A strict plain addr-spec; the domain is lower-cased (it is case-insensitive), the local part kept as given. */
export function parseAddrSpec(input: string): AddrSpecResult {
  const value = input.trim();
  if (value.length === 0 || value.length > MAX_ADDRESS) return fail("recipient-invalid");
  const at = value.lastIndexOf("@");
  if (at <= 0) return fail("recipient-invalid");
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (local.length > MAX_LOCAL || !LOCAL.test(local) || !DOMAIN.test(domain))
    return fail("recipient-invalid");
  // `=?...?=` is atext, but MUAs may decode it as an RFC 2047 encoded-word and show something else (G2's lesson).
  if (local.includes("=?")) return fail("recipient-invalid");
  return { ok: true, address: `${local}@${domain.toLowerCase()}` };
}

interface Collector {
  readonly fields: { to: string[]; cc: string[]; bcc: string[] };
  readonly seen: Set<string>;
  readonly selfKey: string;
}

function add(c: Collector, field: keyof Recipients, address: string): void {
  if (routingKey(address) === c.selfKey) return;
  const key = address.toLowerCase();
  if (c.seen.has(key)) return;
  c.seen.add(key);
  c.fields[field].push(address);
}

/** Validate model-supplied lists: one bad address refuses the whole send (the model can fix and retry). */
function strictList(list: readonly string[] | undefined): Ok<{ list: string[] }> | RecipientFailure {
  const out: string[] = [];
  for (const raw of list ?? []) {
    const parsed = parseAddrSpec(raw);
    if (!parsed.ok) return fail(parsed.reason, raw.replace(/[^\x20-\x7e]/g, "?").slice(0, 100));
    out.push(parsed.address);
  }
  return { ok: true, list: out };
}

function finish(c: Collector, dropped: string[], max: number): RecipientsResult {
  const { to, cc, bcc } = c.fields;
  if (to.length === 0) return fail("no-recipients");
  const count = to.length + cc.length + bcc.length;
  if (count > max) return fail("too-many-recipients", `${count} recipients > ${max}`);
  return { ok: true, to, cc, bcc, dropped };
}

export interface ExtraRecipients {
  readonly extraTo?: readonly string[];
  readonly extraCc?: readonly string[];
  readonly extraBcc?: readonly string[];
}

/**
 * Reply-all. The inbound From is the proven sender (G2). The inbound To/Cc were written by the sender: entries
 * that are not plain addr-specs are dropped (and reported in `dropped`) rather than passed on to SES.
 */
export function replyAllRecipients(
  input: {
    readonly inboundFrom: string;
    readonly inboundTo: readonly string[];
    readonly inboundCc: readonly string[];
    readonly agentAddress: string;
    readonly max: number;
  } & ExtraRecipients,
): RecipientsResult {
  const extra = [strictList(input.extraTo), strictList(input.extraCc), strictList(input.extraBcc)] as const;
  for (const e of extra) if (!e.ok) return e;
  const [extraTo, extraCc, extraBcc] = extra.map((e) => (e.ok ? e.list : [])) as [
    string[],
    string[],
    string[],
  ];
  const c: Collector = {
    fields: { to: [], cc: [], bcc: [] },
    seen: new Set(),
    selfKey: routingKey(input.agentAddress),
  };
  const dropped: string[] = [];
  const lenient = (field: keyof Recipients, list: readonly string[]): void => {
    for (const raw of list) {
      const parsed = parseAddrSpec(raw);
      if (parsed.ok) add(c, field, parsed.address);
      else dropped.push(raw);
    }
  };
  // Order matters: an address already in To is not repeated in Cc or Bcc, so the sender stays visible.
  lenient("to", [input.inboundFrom]);
  lenient("to", input.inboundTo);
  for (const a of extraTo) add(c, "to", a);
  lenient("cc", input.inboundCc);
  for (const a of extraCc) add(c, "cc", a);
  for (const a of extraBcc) add(c, "bcc", a);
  return finish(c, dropped, input.max);
}

/** New mail: every address is model-supplied, so every one must be valid; To must not end up empty. */
export function newMailRecipients(input: {
  readonly to: readonly string[];
  readonly cc?: readonly string[];
  readonly bcc?: readonly string[];
  readonly agentAddress: string;
  readonly max: number;
}): RecipientsResult {
  const lists = [strictList(input.to), strictList(input.cc), strictList(input.bcc)] as const;
  for (const l of lists) if (!l.ok) return l;
  const [to, cc, bcc] = lists.map((l) => (l.ok ? l.list : [])) as [string[], string[], string[]];
  const c: Collector = {
    fields: { to: [], cc: [], bcc: [] },
    seen: new Set(),
    selfKey: routingKey(input.agentAddress),
  };
  for (const a of to) add(c, "to", a);
  for (const a of cc) add(c, "cc", a);
  for (const a of bcc) add(c, "bcc", a);
  return finish(c, [], input.max);
}
