import { describe, expect, it } from "vitest";
import type { RoundLedger } from "../../shared/agent/ports.ts";
import { fresh, type ManualClock, manualClock } from "./ids.ts";

const LEASE = 60_000;

/** The round ledger (ports.ts RoundLedger): one claim per round, a lease against a crashed holder, done is final. */
export function roundLedgerContract(make: (clock: ManualClock) => RoundLedger | Promise<RoundLedger>): void {
  describe("RoundLedger", () => {
    const world = async () => {
      const clock = manualClock();
      return { clock, ledger: await make(clock), runId: fresh("run") };
    };

    it("a round is claimed once; while the lease runs a second claim is busy; done is final", async () => {
      const { ledger, runId } = await world();
      expect(await ledger.claim(runId, 1, LEASE)).toEqual({ status: "claimed", first: true });
      expect(await ledger.claim(runId, 1, LEASE)).toEqual({ status: "busy" });
      await ledger.markDone(runId, 1);
      expect(await ledger.claim(runId, 1, LEASE)).toEqual({ status: "done" });
      // Each round and each run is its own claim.
      expect(await ledger.claim(runId, 2, LEASE)).toEqual({ status: "claimed", first: true });
      expect(await ledger.claim(fresh("run"), 1, LEASE)).toEqual({ status: "claimed", first: true });
    });

    it("of concurrent claims exactly one wins", async () => {
      const { ledger, runId } = await world();
      const claims = await Promise.all([1, 2, 3, 4].map(() => ledger.claim(runId, 1, LEASE)));
      expect(claims.filter((c) => c.status === "claimed")).toHaveLength(1);
      expect(claims.filter((c) => c.status === "busy")).toHaveLength(3);
    });

    it("after the lease a redelivery takes the round over, and then holds it", async () => {
      const { ledger, runId, clock } = await world();
      await ledger.claim(runId, 1, LEASE);
      clock.advance(LEASE - 1);
      expect(await ledger.claim(runId, 1, LEASE)).toEqual({ status: "busy" });
      clock.advance(2);
      // Taken over: an earlier delivery may have run the round's tools.
      expect(await ledger.claim(runId, 1, LEASE)).toEqual({ status: "claimed", first: false });
      expect(await ledger.claim(runId, 1, LEASE)).toEqual({ status: "busy" });
    });

    it("a released round is claimable at once; releasing a done or unknown round changes nothing", async () => {
      const { ledger, runId } = await world();
      await ledger.claim(runId, 1, LEASE);
      await ledger.release(runId, 1);
      expect(await ledger.claim(runId, 1, LEASE)).toEqual({ status: "claimed", first: false });
      await ledger.markDone(runId, 1);
      await ledger.release(runId, 1);
      expect(await ledger.claim(runId, 1, LEASE)).toEqual({ status: "done" });
      await ledger.release(runId, 7);
      expect(await ledger.claim(runId, 7, LEASE)).toEqual({ status: "claimed", first: true });
    });

    it("marking a round done that was never claimed makes it done", async () => {
      const { ledger, runId } = await world();
      await ledger.markDone(runId, 3);
      expect(await ledger.claim(runId, 3, LEASE)).toEqual({ status: "done" });
    });
  });
}
