import { randomUUID } from "node:crypto";

/** A fresh id per case: the adapter suites share one set of emulator tables across cases. */
export const fresh = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 12)}`;

/** A clock a case moves by hand (TTL, leases). */
export function manualClock(start = "2026-11-29T12:00:00Z") {
  const clock = {
    at: new Date(start),
    now: () => clock.at,
    ms: () => clock.at.getTime(),
    advance(ms: number) {
      clock.at = new Date(clock.at.getTime() + ms);
    },
  };
  return clock;
}
export type ManualClock = ReturnType<typeof manualClock>;
