import { describe, expect, it } from "vitest";
import type { BreakerStore } from "../../shared/webhooks/ports.ts";
import { fresh } from "./ids.ts";

/**
 * A webhook endpoint's circuit breaker (shared/webhooks/breaker.ts). Many workers fail against one dead receiver at
 * the same moment, so the counts must add up and exactly one of them may learn that it opened the breaker: that one
 * reports `circuit-opened` (G19), once.
 */
export function breakerContract(make: () => BreakerStore | Promise<BreakerStore>): void {
  describe("BreakerStore", () => {
    it("counts racing failures each once", async () => {
      const b = await make();
      const id = fresh("hook");
      const counts = await Promise.all([1, 2, 3, 4, 5].map(() => b.countFailure(id)));
      expect([...counts].sort()).toEqual([1, 2, 3, 4, 5]);
      expect(await b.get(id)).toEqual({ failures: 5 });
    });

    it("of racing openings exactly one opened it; a later opening (a failed probe) did not", async () => {
      const b = await make();
      const id = fresh("hook");
      await b.countFailure(id);
      const until = "2030-01-01T00:00:00.000Z";
      const opened = await Promise.all([1, 2, 3].map(() => b.open(id, until)));
      expect(opened.filter(Boolean)).toHaveLength(1);
      expect(await b.get(id)).toEqual({ failures: 1, openUntil: until });
      expect(await b.open(id, "2030-01-01T00:01:00.000Z")).toBe(false);
      expect((await b.get(id)).openUntil).toBe("2030-01-01T00:01:00.000Z");
    });

    it("one racing delivery claims the probe; closing clears the count and the cool-down", async () => {
      const b = await make();
      const id = fresh("hook");
      const until = "2030-01-01T00:00:00.000Z";
      await b.countFailure(id);
      await b.open(id, until);
      const next = "2030-01-01T00:05:00.000Z";
      const claims = await Promise.all([1, 2, 3].map(() => b.claimProbe(id, until, next)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      await b.close(id);
      expect(await b.get(id)).toEqual({ failures: 0 });
      expect(await b.open(id, until)).toBe(true);
    });
  });
}
