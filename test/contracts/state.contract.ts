import { describe, expect, it } from "vitest";
import type { StatePort } from "../fakes/state.ts";
import { fresh, type ManualClock, manualClock } from "./ids.ts";

/**
 * The `state` table's items (StateRepo): once-only claims (signed messages, tool results, budget notices, file
 * metadata), state machines (plans, sends) and bounded counters (budgets, G10).
 */
export function stateContract(make: (clock: ManualClock) => StatePort | Promise<StatePort>): void {
  describe("StateRepo: claims", () => {
    it("puts a key once, until it expires; the refusal shows what is there", async () => {
      const clock = manualClock();
      const state = await make(clock);
      const pk = fresh("idem");
      expect(await state.putIfAbsent(pk, "k", { v: 1 }, 60)).toEqual({ ok: true });
      expect(await state.putIfAbsent(pk, "k", { v: 2 }, 60)).toEqual({
        ok: false,
        reason: "duplicate",
        existing: { pk, sk: "k", v: 1, expiresAt: Math.floor(clock.ms() / 1000) + 60 },
      });
      clock.advance(120_000);
      expect(await state.get(pk, "k")).toBeNull();
      expect(await state.putIfAbsent(pk, "k", { v: 3 }, 60)).toEqual({ ok: true });
      expect(await state.get(pk, "k")).toMatchObject({ v: 3 });
    });

    it("a key without a lifetime stays; sort keys are separate items", async () => {
      const clock = manualClock();
      const state = await make(clock);
      const pk = fresh("signed");
      expect(await state.putIfAbsent(pk, "a", { sesMessageId: "s1" })).toEqual({ ok: true });
      expect(await state.putIfAbsent(pk, "b", { sesMessageId: "s2" })).toEqual({ ok: true });
      clock.advance(400 * 24 * 3600_000);
      expect(await state.putIfAbsent(pk, "a", { sesMessageId: "s3" })).toMatchObject({
        ok: false,
        existing: { sesMessageId: "s1" },
      });
      expect(await state.get(fresh("none"), "a")).toBeNull();
    });
  });

  describe("StateRepo: state machines", () => {
    it("moves only from the expected state, setting the given attributes", async () => {
      const state = await make(manualClock());
      const pk = fresh("send");
      await state.putIfAbsent(pk, "s", { state: "pending" });
      expect(await state.transition(pk, "s", "pending", "sending", { attempt: 1 })).toEqual({ ok: true });
      expect(await state.transition(pk, "s", "pending", "sending")).toEqual({
        ok: false,
        reason: "conflict",
        state: "sending",
      });
      expect(await state.transition(fresh("none"), "s", "pending", "sending")).toEqual({
        ok: false,
        reason: "missing",
      });
      expect(await state.get(pk, "s")).toEqual({ pk, sk: "s", state: "sending", attempt: 1 });
    });

    it("of concurrent moves from one state exactly one applies", async () => {
      const state = await make(manualClock());
      const pk = fresh("plan");
      await state.putIfAbsent(pk, "plan", { state: "pending" });
      const moves = await Promise.all(
        [1, 2, 3].map((i) => state.transition(pk, "plan", "pending", "applying", { by: i })),
      );
      expect(moves.filter((m) => m.ok)).toHaveLength(1);
    });

    it("refuses to set the key or the state through attributes", async () => {
      const state = await make(manualClock());
      const pk = fresh("x");
      await state.putIfAbsent(pk, "s", { state: "a" });
      await expect(state.transition(pk, "s", "a", "b", { state: "c" })).rejects.toThrow(/cannot set state/);
      await expect(state.transition(pk, "s", "a", "b", { pk: "other" })).rejects.toThrow(/cannot set pk/);
    });

    it("an expired item still moves (a lifetime only schedules deletion); reading it shows nothing", async () => {
      const clock = manualClock();
      const state = await make(clock);
      const pk = fresh("plancode");
      await state.putIfAbsent(pk, "s", { state: "a" }, 60);
      clock.advance(120_000);
      expect(await state.transition(pk, "s", "a", "b")).toEqual({ ok: true });
      expect(await state.transition(pk, "s", "a", "b")).toEqual({ ok: false, reason: "missing" });
      expect(await state.get(pk, "s")).toBeNull();
    });
  });

  describe("StateRepo: counters", () => {
    it("never lets concurrent increments pass the limit", async () => {
      const state = await make(manualClock());
      const pk = fresh("budget");
      const results = await Promise.all(
        Array.from({ length: 10 }, () => state.increment(pk, "runs", 1, { limit: 4, ttlSeconds: 3600 })),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(4);
      expect(results.filter((r) => !r.ok)).toEqual(
        Array(6).fill({ ok: false, reason: "limit-reached", value: 4 }),
      );
      expect(await state.increment(pk, "tokens", 500, { limit: 400 })).toEqual({
        ok: false,
        reason: "limit-reached",
        value: 0,
      });
      expect(await state.increment(pk, "tokens", 5)).toEqual({ ok: true, value: 5 });
    });

    it("counts down as well as up; a zero step probes the limit without spending", async () => {
      const state = await make(manualClock());
      const pk = fresh("budget");
      await state.increment(pk, "d", 3, { limit: 3 });
      expect(await state.increment(pk, "d", 0, { limit: 2 })).toEqual({
        ok: false,
        reason: "limit-reached",
        value: 3,
      });
      expect(await state.increment(pk, "d", -1)).toEqual({ ok: true, value: 2 });
      expect(await state.increment(pk, "d", 0, { limit: 2 })).toEqual({ ok: true, value: 2 });
      await expect(state.increment(pk, "d", Number.NaN)).rejects.toThrow(/finite/);
    });

    it("reads several counters at once, in the order asked, a missing one as 0", async () => {
      const state = await make(manualClock());
      const pk = fresh("budget");
      await state.increment(pk, "a", 7);
      await state.increment(pk, "c", 2);
      await state.increment(pk, "c", 3);
      expect(
        await state.counterValues([
          { pk, sk: "c" },
          { pk, sk: "b" },
          { pk, sk: "a" },
        ]),
      ).toEqual([5, 0, 7]);
      expect(await state.counterValues([])).toEqual([]);
    });

    it("a counter's lifetime is set by its first increment and not moved by later ones", async () => {
      const clock = manualClock();
      const state = await make(clock);
      const pk = fresh("budget");
      await state.increment(pk, "day", 1, { ttlSeconds: 3600 });
      clock.advance(600_000);
      await state.increment(pk, "day", 1, { ttlSeconds: 3600 });
      expect(await state.get(pk, "day")).toEqual({
        pk,
        sk: "day",
        value: 2,
        expiresAt: Math.floor(clock.ms() / 1000) - 600 + 3600,
      });
    });
  });
}
