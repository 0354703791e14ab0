import { describe, expect, it } from "vitest";
import { SECRET_CACHE_TTL_MS } from "../../../shared/secrets/cache.ts";
import { cachedSecretsStore, type SecretsStore, secretCache } from "../../../shared/secrets/index.ts";

function counting(values: Map<string, string>, failNext = { n: 0 }) {
  const reads: string[] = [];
  const store: SecretsStore = {
    async get(name) {
      reads.push(name);
      if (failNext.n > 0) {
        failNext.n--;
        throw Object.assign(new Error("throttled"), { name: "ThrottlingException" });
      }
      return values.get(name) ?? null;
    },
    async set(name, value) {
      values.set(name, value);
    },
    async remove(name) {
      return values.delete(name);
    },
    list: async () => [],
  };
  return { store, reads };
}

describe("the one secrets cache", () => {
  it("reuses a read for the TTL (5 minutes by default), then reads again", async () => {
    let t = 0;
    const { store, reads } = counting(new Map([["postern/a", "v1"]]));
    const cached = cachedSecretsStore(store, secretCache({ now: () => t }));
    expect(await cached.get("postern/a")).toBe("v1");
    t = SECRET_CACHE_TTL_MS - 1;
    expect(await cached.get("postern/a")).toBe("v1");
    expect(reads).toHaveLength(1);
    t = SECRET_CACHE_TTL_MS;
    await cached.get("postern/a");
    expect(reads).toHaveLength(2);
    expect(SECRET_CACHE_TTL_MS).toBe(300_000);
  });

  it("does not keep a failed read", async () => {
    const { store, reads } = counting(new Map([["postern/a", "v1"]]), { n: 1 });
    const cached = cachedSecretsStore(store, secretCache({ now: () => 0 }));
    await expect(cached.get("postern/a")).rejects.toThrow("throttled");
    expect(await cached.get("postern/a")).toBe("v1");
    expect(reads).toHaveLength(2);
  });

  it("a write or remove through it is read back at once", async () => {
    const { store } = counting(new Map([["postern/a", "v1"]]));
    const cached = cachedSecretsStore(store, secretCache({ now: () => 0 }));
    expect(await cached.get("postern/a")).toBe("v1");
    await cached.set("postern/a", "v2");
    expect(await cached.get("postern/a")).toBe("v2");
    await cached.remove("postern/a");
    expect(await cached.get("postern/a")).toBeNull();
  });
});
