import type { StateRepo } from "../../shared/store/state-repo.ts";
import { stored } from "./stored.ts";

type Item = Record<string, unknown>;

/** The `state` table as its users see it: once-only markers, state machines, bounded counters (StateRepo). */
export type StatePort = Pick<StateRepo, "putIfAbsent" | "get" | "transition" | "increment" | "counterValues">;

export interface MemoryState extends StatePort {
  /** Every item by `pk|sk`, expired ones included (as in DynamoDB, where TTL deletes only eventually). */
  readonly items: Map<string, Item>;
  /** The pk of every `get`, in order: what a test counts reads by. */
  readonly reads: string[];
}

const k = (pk: string, sk: string) => `${pk}|${sk}`;

/**
 * StateRepo over a map, with its conditions: an expired item counts as absent for `putIfAbsent` and `get`, but
 * `transition` and `increment` still see it (their conditions do not look at `expiresAt`). Run against the real
 * repository by test/contracts/state.contract.ts.
 */
export function memoryState(opts: { now?: () => Date } = {}): MemoryState {
  const items = new Map<string, Item>();
  const reads: string[] = [];
  const epoch = () => Math.floor((opts.now?.() ?? new Date()).getTime() / 1000);
  const live = (item: Item | undefined) =>
    item && !(typeof item.expiresAt === "number" && item.expiresAt < epoch()) ? item : undefined;
  const get = async (pk: string, sk: string) => {
    reads.push(pk);
    const item = live(items.get(k(pk, sk)));
    return item ? stored(item) : null;
  };
  return {
    items,
    reads,
    get,
    async putIfAbsent(pk, sk, attrs = {}, ttlSeconds) {
      const current = items.get(k(pk, sk));
      if (current && !(typeof current.expiresAt === "number" && current.expiresAt < epoch()))
        return { ok: false, reason: "duplicate", existing: await get(pk, sk) };
      items.set(
        k(pk, sk),
        stored({ ...attrs, pk, sk, ...(ttlSeconds ? { expiresAt: epoch() + ttlSeconds } : {}) }),
      );
      return { ok: true };
    },
    async transition(pk, sk, from, to, attrs = {}) {
      for (const name of Object.keys(attrs))
        if (name === "pk" || name === "sk" || name === "state")
          throw new Error(`transition: cannot set ${name}`);
      const current = items.get(k(pk, sk));
      if (current && current.state === from) {
        items.set(k(pk, sk), stored({ ...current, ...attrs, state: to }));
        return { ok: true };
      }
      const seen = await get(pk, sk);
      return seen ? { ok: false, reason: "conflict", state: seen.state } : { ok: false, reason: "missing" };
    },
    async counterValues(keys) {
      if (keys.length > 100) throw new Error("counterValues: at most 100 keys");
      return keys.map((key) => Number(items.get(k(key.pk, key.sk))?.value ?? 0));
    },
    async increment(pk, sk, by, o = {}) {
      if (!Number.isFinite(by)) throw new Error("increment: by must be a finite number");
      const current = items.get(k(pk, sk));
      const value = Number(current?.value ?? 0);
      const { limit, ttlSeconds } = o;
      if (limit !== undefined && (by > limit || (current?.value !== undefined && value > limit - by)))
        return { ok: false, reason: "limit-reached", value };
      items.set(
        k(pk, sk),
        stored({
          ...current,
          pk,
          sk,
          value: value + by,
          ...(ttlSeconds && current?.expiresAt === undefined ? { expiresAt: epoch() + ttlSeconds } : {}),
        }),
      );
      return { ok: true, value: value + by };
    },
  };
}
