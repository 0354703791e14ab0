import { describe, expect, it } from "vitest";
import type { PlanBook, RequesterProof, StoredOperation } from "../../shared/ports/plans.ts";
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
const REQUESTER: RequesterProof = {
  address: "pat@customer.example",
  proof: { dkimDomain: "customer.example", signed: { to: true, cc: false, threading: "none" } },
  messageId: "m-1",
  threadId: "t-1",
  subject: "Refund",
  receivedAt: "2026-11-29T12:00:00.000Z",
  asking: "Please refund A-1",
};

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

    it("keeps who asked, as sealed", async () => {
      const plans = await make();
      const runId = fresh("run");
      await plans.add(runId, AGENT, op("c1"));
      expect(await plans.seal(runId, AGENT, { ...sealed(fresh("CODE")), requester: REQUESTER })).toBe(true);
      expect((await plans.get(runId))?.requester).toEqual(REQUESTER);
    });

    it("moves only from the state it is in, once; what a move records is kept, extra attributes are not shown", async () => {
      const plans = await make();
      const runId = fresh("run");
      await plans.add(runId, AGENT, op("c1"));
      await plans.seal(runId, AGENT, sealed(fresh("CODE")));
      const decided = { decidedBy: "boss@x.example", decidedAt: "2026-11-29T12:05:00.000Z" };
      const moves = await Promise.all([1, 2, 3].map(() => plans.move(runId, "pending", "applying", decided)));
      expect(moves.filter(Boolean)).toHaveLength(1);
      expect(await plans.move(runId, "pending", "cancelled")).toBe(false);
      const results = [{ number: 1, tool: "issue_refund", status: "failed", reason: "order-not-found" }];
      const finished = { results, finishedAt: "2026-11-29T12:05:01.000Z", failedReason: "order-not-found" };
      expect(await plans.move(runId, "applying", "failed", { ...finished, extra: "x" })).toBe(true);
      const plan = await plans.get(runId);
      expect(plan).toMatchObject({ state: "failed", ...decided, ...finished });
      expect(Object.keys(plan ?? {}).sort()).toEqual(
        [
          "agent",
          "code",
          "decidedAt",
          "decidedBy",
          "expiresAtIso",
          "failedReason",
          "finishedAt",
          "hash",
          "ops",
          "planAt",
          "results",
          "runId",
          "state",
        ].sort(),
      );
      expect(await plans.move(fresh("run"), "pending", "applying")).toBe(false);
    });
  });
}
