import { type SecretCache, secretCache } from "./cache.ts";
import type { SecretsStore } from "./store.ts";

/** A store whose reads go through the one cache; its own writes and removes drop the entry first. */
export function cachedSecretsStore(store: SecretsStore, cache: SecretCache = secretCache()): SecretsStore {
  return {
    get: (name) => cache.get(name, () => store.get(name)),
    async set(name, value) {
      cache.drop(name);
      await store.set(name, value);
    },
    async remove(name) {
      cache.drop(name);
      return store.remove(name);
    },
    list: () => store.list(),
  };
}
