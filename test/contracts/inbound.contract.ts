import { describe, expect, it } from "vitest";
import type { InboundPort } from "../fakes/inbound.ts";
import { fresh, type ManualClock, manualClock } from "./ids.ts";

/** Verify's dedupe and evidence record (InboundRepo): one item per (SES message, envelope recipient). */
export function inboundContract(make: (clock: ManualClock) => InboundPort | Promise<InboundPort>): void {
  const claimOf = (recipient = "a@x.example") => ({
    sesMessageId: fresh("ses"),
    recipient,
    rawKey: "inbound/x",
    receivedAt: "2026-11-29T10:00:00.000Z",
  });

  describe("InboundRepo", () => {
    it("claims one (SES message, recipient) once: the second delivery is a duplicate", async () => {
      const inbound = await make(manualClock());
      const claim = claimOf();
      expect(await inbound.claim(claim)).toMatchObject({
        ok: true,
        record: { status: "claimed", verdict: null },
      });
      expect(await inbound.claim(claim)).toMatchObject({
        ok: false,
        reason: "duplicate",
        existing: { status: "claimed" },
      });
      // Another envelope recipient of the same mail is its own item (Bcc'd agents).
      expect((await inbound.claim({ ...claim, recipient: "b@x.example" })).ok).toBe(true);
    });

    it("completes once, keeping the verdict; reports missing claims", async () => {
      const clock = manualClock();
      const inbound = await make(clock);
      const claim = claimOf();
      await inbound.claim(claim);
      const outcome = {
        verdict: "refuse",
        reason: "access-denied",
        sender: "eve@evil.example",
        agent: "a@x.example",
        messageId: null,
      } as const;
      clock.advance(1000);
      expect(await inbound.complete(claim.sesMessageId, claim.recipient, outcome)).toEqual({ ok: true });
      expect(await inbound.complete(claim.sesMessageId, claim.recipient, outcome)).toEqual({
        ok: false,
        reason: "already-done",
      });
      expect(await inbound.complete(fresh("nope"), "a@x.example", outcome)).toEqual({
        ok: false,
        reason: "missing",
      });
      expect(await inbound.get(claim.sesMessageId, claim.recipient)).toEqual({
        ...claim,
        ...outcome,
        status: "done",
        claimedAt: "2026-11-29T12:00:00.000Z",
        completedAt: "2026-11-29T12:00:01.000Z",
        refusalDay: "2026-11-29",
        refusalAt: "2026-11-29T12:00:01.000Z",
      });
    });

    it("keeps a refusal's detail, and writes none when the outcome has none", async () => {
      const inbound = await make(manualClock());
      const [withDetail, without] = [claimOf(), claimOf()];
      await inbound.claim(withDetail);
      await inbound.claim(without);
      const outcome = {
        verdict: "refuse",
        reason: "dkim-misaligned",
        sender: null,
        agent: null,
        messageId: null,
      } as const;
      const detail = "signed by contoso.onmicrosoft.com, not contoso.com";
      await inbound.complete(withDetail.sesMessageId, withDetail.recipient, { ...outcome, detail });
      await inbound.complete(without.sesMessageId, without.recipient, outcome);
      expect((await inbound.get(withDetail.sesMessageId, withDetail.recipient))?.detail).toBe(detail);
      expect(await inbound.get(without.sesMessageId, without.recipient)).not.toHaveProperty("detail");
    });

    it("lets exactly one redelivery take over a stale claim, and none a completed one", async () => {
      const clock = manualClock("2026-11-29T10:00:00Z");
      const inbound = await make(clock);
      const claim = claimOf();
      await inbound.claim(claim);
      clock.advance(600_000);
      const dup = await inbound.claim(claim);
      const seen = !dup.ok && dup.existing ? dup.existing.claimedAt : "";
      expect(seen).toBe("2026-11-29T10:00:00.000Z");
      const results = await Promise.all(
        [1, 2, 3].map(() => inbound.reclaimStale(claim.sesMessageId, claim.recipient, seen)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      await inbound.complete(claim.sesMessageId, claim.recipient, {
        verdict: "drop",
        reason: "hop-limit",
        sender: null,
        agent: null,
        messageId: null,
      });
      expect(
        await inbound.reclaimStale(claim.sesMessageId, claim.recipient, "2026-11-29T10:10:00.000Z"),
      ).toBe(false);
    });
  });
}
