import type { InboundRecord } from "../../shared/ports/inbound.ts";
import type { InboundRepo } from "../../shared/store/inbound-repo.ts";
import { stored } from "./stored.ts";

/** The inbound table as verify uses it (InboundRepo): one item per (SES message, envelope recipient). */
export type InboundPort = Pick<InboundRepo, "claim" | "complete" | "get" | "reclaimStale">;

export interface MemoryInbound extends InboundPort {
  readonly records: Map<string, InboundRecord>;
}

/**
 * The inbound table over a map: claimed once, completed once, a stale claim taken over by exactly one caller that
 * saw it. Refusals carry the day the console indexes them by. Run against the real one by
 * test/contracts/inbound.contract.ts.
 */
export function memoryInbound(opts: { now?: () => Date } = {}): MemoryInbound {
  const now = () => (opts.now?.() ?? new Date()).toISOString();
  const records = new Map<string, InboundRecord>();
  const key = (ses: string, recipient: string) => `${ses}|${recipient}`;
  const get = async (ses: string, recipient: string) => {
    const r = records.get(key(ses, recipient));
    return r ? stored(r) : null;
  };
  return {
    records,
    get,
    async claim(claim) {
      const k = key(claim.sesMessageId, claim.recipient);
      if (records.has(k))
        return { ok: false, reason: "duplicate", existing: await get(claim.sesMessageId, claim.recipient) };
      const record: InboundRecord = {
        ...claim,
        status: "claimed",
        claimedAt: now(),
        completedAt: null,
        verdict: null,
        reason: null,
        sender: null,
        agent: null,
        messageId: null,
      };
      records.set(k, stored(record));
      return { ok: true, record };
    },
    async reclaimStale(ses, recipient, seenClaimedAt) {
      const r = records.get(key(ses, recipient));
      if (r?.status !== "claimed" || r.claimedAt !== seenClaimedAt) return false;
      records.set(key(ses, recipient), { ...r, claimedAt: now() });
      return true;
    },
    async complete(ses, recipient, outcome) {
      const r = records.get(key(ses, recipient));
      if (r?.status !== "claimed") return { ok: false, reason: r ? "already-done" : "missing" };
      const at = now();
      const refusal = outcome.verdict !== "accept";
      records.set(
        key(ses, recipient),
        stored({
          ...r,
          ...outcome,
          status: "done",
          completedAt: at,
          ...(refusal ? { refusalDay: at.slice(0, 10), refusalAt: at } : {}),
        }),
      );
      return { ok: true };
    },
  };
}
