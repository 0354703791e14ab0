/**
 * The one secrets cache: a read is reused for `ttlMs` per warm process so each model call or delivery does not pay
 * a Secrets Manager round trip, and a rotation is picked up after it. A failed read is not kept (the next call
 * retries); a write or remove through the store drops the entry so the writer reads its own write.
 */
export interface SecretCache {
  get(name: string, load: () => Promise<string | null>): Promise<string | null>;
  drop(name: string): void;
}

/** Five minutes: the model key cache's TTL before the two caches became one (rotation overlap is hours). */
export const SECRET_CACHE_TTL_MS = 5 * 60_000;

export function secretCache(
  opts: { readonly ttlMs?: number; readonly now?: () => number } = {},
): SecretCache {
  const ttl = opts.ttlMs ?? SECRET_CACHE_TTL_MS;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { readonly value: Promise<string | null>; readonly until: number }>();
  return {
    get(name, load) {
      const hit = entries.get(name);
      if (hit && hit.until > now()) return hit.value;
      const value = load();
      const entry = { value, until: now() + ttl };
      entries.set(name, entry);
      value.catch(() => {
        if (entries.get(name) === entry) entries.delete(name);
      });
      return value;
    },
    drop(name) {
      entries.delete(name);
    },
  };
}
