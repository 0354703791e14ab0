// DNS for one message's key lookups, with the sender's influence on our time taken away (G2).
//
// Every selector a DKIM-Signature names is a lookup we make on the sender's say-so, and the
// sender may run the DNS server that answers it slowly on purpose. So, per message: at most
// `maxLookups` distinct names, each answered within `timeoutMs` or failed as ETIMEOUT (mailauth
// then reports temperror, which refuses), and nothing at all once the proof's deadline has passed.
// A name that answers with more than one TXT record is refused outright: RFC 6376 §3.6.2.2 says
// "TXT RRs MUST be unique for a particular selector name ... the results are undefined"
// otherwise, and mailauth would silently take the first.

import type { DNSResolver } from "mailauth";

export interface LookupBounds {
  readonly maxLookups: number;
  readonly timeoutMs: number;
  /** Epoch milliseconds after which no lookup is started or awaited. */
  readonly deadline: number;
  readonly now?: () => number;
}

export interface BoundedResolver {
  readonly resolve: DNSResolver;
  /** Names that answered with more than one TXT record. */
  readonly ambiguous: ReadonlySet<string>;
  /** Distinct names asked for, in order (capped lookups included, so a test can count them). */
  readonly asked: readonly string[];
}

/** The error code a capped, late or timed-out lookup fails with (mailauth: temperror). */
export const LOOKUP_TIMEOUT = "ETIMEOUT";
/** The error code for a selector with several key records. */
export const KEY_RECORDS_AMBIGUOUS = "EPOSTERNMULTIPLEKEYS";

function dnsError(code: string, name: string): Error {
  return Object.assign(new Error(`${code} ${name}`), { code, hostname: name });
}

const normalise = (name: string) => name.toLowerCase().replace(/\.$/, "");

export function boundedResolver(inner: DNSResolver, bounds: LookupBounds): BoundedResolver {
  const now = bounds.now ?? Date.now;
  const answers = new Map<string, Promise<string[][] | string[]>>();
  const ambiguous = new Set<string>();
  const asked: string[] = [];

  const lookup = async (name: string, rrtype: string): Promise<string[][] | string[]> => {
    const wait = Math.min(bounds.timeoutMs, bounds.deadline - now());
    if (wait <= 0) throw dnsError(LOOKUP_TIMEOUT, name);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(dnsError(LOOKUP_TIMEOUT, name)), wait);
    });
    try {
      const records = await Promise.race([inner(name, rrtype), late]);
      if (rrtype.toUpperCase() === "TXT" && Array.isArray(records) && records.length > 1) {
        ambiguous.add(normalise(name));
        throw dnsError(KEY_RECORDS_AMBIGUOUS, name);
      }
      return records;
    } finally {
      clearTimeout(timer);
    }
  };

  const resolve: DNSResolver = (name, rrtype) => {
    const key = `${normalise(name)} ${rrtype.toUpperCase()}`;
    const known = answers.get(key);
    if (known !== undefined) return known;
    asked.push(normalise(name));
    // counted when asked, not when answered, so the cap holds however many lookups are in flight
    const answer =
      answers.size >= bounds.maxLookups
        ? Promise.reject(dnsError(LOOKUP_TIMEOUT, name))
        : lookup(name, rrtype);
    answer.catch(() => undefined);
    answers.set(key, answer);
    return answer;
  };
  return { resolve, ambiguous, asked };
}
