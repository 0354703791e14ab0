import type { DeliveryPolicy } from "./policy.ts";

/**
 * A per-endpoint circuit breaker (state in DynamoDB). The threat is a dead or slow receiver holding every worker
 * in timeouts and burning its retry budget in minutes: after `breakerThreshold` consecutive failures the endpoint
 * is left alone for a cool-down, its deliveries wait (without spending an attempt), then one probe goes through.
 * A success closes it; a failed probe opens it again.
 *
 * Workers fail at the same moment (one dead receiver, many queued events), so the store counts failures with an
 * atomic add and opening is one atomic write that says whether the breaker was closed before it: of two workers
 * that cross the threshold together exactly one reports `circuit-opened` (G19 reports a failure once, not per
 * worker).
 */
export interface BreakerState {
  readonly failures: number;
  /** ISO 8601; while in the future, deliveries wait. */
  readonly openUntil?: string;
}

export const CLOSED: BreakerState = { failures: 0 };

/** Seconds a delivery must wait, or 0 when it may go now (closed, or the cool-down is over: the probe). */
export function breakerWait(state: BreakerState, now: Date): number {
  if (!state.openUntil) return 0;
  const left = Date.parse(state.openUntil) - now.getTime();
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

/** When the cool-down of a breaker opened (or re-opened by a failed probe) at `now` ends. */
export function openUntilAfter(now: Date, policy: DeliveryPolicy): string {
  return new Date(now.getTime() + policy.breakerCooldownSeconds * 1000).toISOString();
}
