import { describe, expect, it } from "vitest";
import type { SendStateStore } from "../../shared/outbound/ports.ts";
import { fresh } from "./ids.ts";

const T0 = "2026-11-29T12:00:00.000Z";
const T1 = "2026-11-29T12:00:05.000Z";

/** The outbound send state machine (outbound/ports.ts SendStateStore): claimed once, moved only from a listed state. */
export function sendStateContract(make: () => SendStateStore | Promise<SendStateStore>): void {
  describe("SendStateStore", () => {
    it("claims a request once; an unknown request is null", async () => {
      const store = await make();
      const id = fresh("req");
      expect(await store.get(id)).toBeNull();
      expect(await store.claim(id, T0)).toBe(true);
      expect(await store.claim(id, T1)).toBe(false);
      expect(await store.get(id)).toEqual({ requestId: id, state: "claimed", claimedAt: T0, updatedAt: T0 });
    });

    it("moves from any listed state, once, keeping the fields; a missing request never moves", async () => {
      const store = await make();
      const id = fresh("req");
      await store.claim(id, T0);
      expect(await store.transition(id, ["sending", "claimed"], "sending", { sendingAt: T1 }, T1)).toBe(true);
      expect(await store.transition(id, ["claimed"], "sending", {}, T1)).toBe(false);
      expect(await store.transition(id, ["sending"], "sent", { sesMessageId: "0100-abc" }, T1)).toBe(true);
      expect(await store.get(id)).toEqual({
        requestId: id,
        state: "sent",
        claimedAt: T0,
        updatedAt: T1,
        sendingAt: T1,
        sesMessageId: "0100-abc",
      });
      expect(
        await store.transition(
          fresh("req"),
          ["claimed", "sending"],
          "failed",
          { reason: "ses-no-answer" },
          T1,
        ),
      ).toBe(false);
    });
  });
}
