import { describe, expect, it } from "vitest";
import { perReceive } from "../../../shared/payloads/per-receive.ts";

describe("perReceive", () => {
  it("reads once until reset; a failed read is not kept; with maxAgeMs, an old value is read again", async () => {
    let reads = 0;
    let fail = false;
    const read = async () => {
      reads++;
      if (fail) throw new Error("down");
      return reads;
    };
    const kept = perReceive(read);
    expect(await kept.get()).toBe(1);
    expect(await kept.get()).toBe(1);
    kept.reset();
    fail = true;
    await expect(kept.get()).rejects.toThrow("down");
    fail = false;
    expect(await kept.get()).toBe(3);

    let t = 0;
    const aged = perReceive(read, { maxAgeMs: 1000, now: () => t });
    expect(await aged.get()).toBe(4);
    t = 1000;
    expect(await aged.get()).toBe(4);
    t = 1001;
    expect(await aged.get()).toBe(5);
  });
});
