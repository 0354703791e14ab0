import { describe, expect, it } from "vitest";
import type { PlanBook, StoredOperation } from "../../shared/ports/plans.ts";
import { fresh } from "./ids.ts";

const AGENT = "shop@agents.example.net";
const op = (callId: string, input: unknown = { order: "A-1" }): StoredOperation => ({
  callId,
  tool: "issue_refund",
  input,
  summary: `Refund ${callId}`,
  toolkits: ["refunds"],
});
const sealed = (code: string) => ({ code, hash: "h".repeat(64), expiresAtIso: "2026-11-30T12:00:00.000Z" });

/** The plans (shared/ports/plans.ts PlanBook): proposing, sealing with a code, and moving only from the state they are in. */
export function planStoreContract(make: () => PlanBook | Promise<PlanBook>): void {
  describe("PlanBook", () => {
    it("collects a run's operations in order, each call once, while the plan is open", async () => {
      const plans = await make();
      const runId = fresh("run");
      expect(await plans.get(runId)).toBeNull();
      expect(await plans.add(runId, AGENT, op("c1"))).toBe("added");
      expect(await plans.add(runId, AGENT, op("c2", { order: "A-2", nested: { n: [1, 2] } }))).toBe("added");
      expect(await plans.add(runId, AGENT, op("c1", { order: "other" }))).toBe("duplicate");
      expect(await plans.get(runId)).toEqual({
        runId,
        agent: AGENT,
        state: "open",
        ops: [op("c1"), op("c2", { order: "A-2", nested: { n: [1, 2] } })],
        planAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    });

    it("seals an open plan once, with its code, hash and expiry; then the plan is closed to new calls", async () => {
      const plans = await make();
      const runId = fresh("run");
      const code = fresh("CODE");
      await plans.add(runId, AGENT, op("c1"));
      expect(await plans.runForCode(code)).toBeNull();
      expect(await plans.seal(runId, AGENT, sealed(code))).toBe(true);
      expect(await plans.seal(runId, AGENT, sealed(fresh("CODE")))).toBe(false);
      expect(await plans.get(runId)).toMatchObject({ state: "pending", ...sealed(code) });
      expect(await plans.runForCode(code)).toEqual({ runId, agent: AGENT });
      expect(await plans.add(runId, AGENT, op("c2"))).toBe("closed");
      expect(await plans.add(runId, AGENT, op("c1"))).toBe("duplicate");
      expect(await plans.seal(fresh("run"), AGENT, sealed(fresh("CODE")))).toBe(false);
    });

    it("moves only from the state it is in, once; what a move records is kept, extra attributes are not shown", async () => {
      const plans = await make();
      const runId = fresh("run");
      await plans.add(runId, AGENT, op("c1"));
      await plans.seal(runId, AGENT, sealed(fresh("CODE")));
      const moves = await Promise.all(
        [1, 2, 3].map(() => plans.move(runId, "pending", "applying", { decidedBy: "boss@x.example" })),
      );
      expect(moves.filter(Boolean)).toHaveLength(1);
      expect(await plans.move(runId, "pending", "cancelled")).toBe(false);
      expect(
        await plans.move(runId, "applying", "applied", { results: [{ tool: "issue_refund", ok: true }] }),
      ).toBe(true);
      const plan = await plans.get(runId);
      expect(plan).toMatchObject({ state: "applied", decidedBy: "boss@x.example" });
      expect(Object.keys(plan ?? {}).sort()).toEqual(
        ["agent", "code", "decidedBy", "expiresAtIso", "hash", "ops", "planAt", "runId", "state"].sort(),
      );
      expect(await plans.move(fresh("run"), "pending", "applying")).toBe(false);
    });
  });
}
