/**
 * When a failed delivery is tried again, and when an endpoint is left alone. The default schedule is the Standard
 * Webhooks specification's example (retry after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h): 8 attempts over
 * 27 h 35 min, so a receiver down for a day still gets the event. Each wait is one SQS visibility change, which SQS
 * caps at 12 h.
 */
export interface DeliveryPolicy {
  /** Seconds to wait after failed attempt n (index n-1) before attempt n+1; attempts = length + 1. */
  readonly retrySeconds: readonly number[];
  /** Consecutive failed attempts (any event) that open an endpoint's breaker. */
  readonly breakerThreshold: number;
  /** How long an open breaker holds deliveries before one probe is let through. */
  readonly breakerCooldownSeconds: number;
  /** Per attempt: connect, send, and the status line. */
  readonly timeoutMs: number;
}

export const SQS_MAX_VISIBILITY_SECONDS = 12 * 3600;

/** SendMessage's DelaySeconds cap (SQS API reference, SendMessage). A breaker's wait is sent as such a delay. */
export const SQS_MAX_DELAY_SECONDS = 900;

/**
 * Receives a delivery may have on top of its attempts, for a worker killed mid-batch (a timeout, out of memory): as
 * many as the pipeline queues allow in all (their maxReceiveCount, 5).
 */
export const CRASH_RECEIVES = 5;

export const DEFAULT_POLICY: DeliveryPolicy = {
  retrySeconds: [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
  breakerThreshold: 5,
  breakerCooldownSeconds: 300,
  timeoutMs: 10_000,
};

export const maxAttempts = (p: DeliveryPolicy): number => p.retrySeconds.length + 1;

/**
 * The events queue's maxReceiveCount, derived from the schedule. A breaker's wait re-sends the delivery as a fresh
 * message (a new message starts at receive count 0), so one message is received once per attempt (each retry is a
 * visibility change on it) and once more per crash; never once per cool-down. Without that, an open breaker
 * received every delivery 12 times an hour and SQS moved it to the DLQ after ~8 h of a 27 h schedule.
 */
export const maxReceivesFor = (p: DeliveryPolicy): number => maxAttempts(p) + CRASH_RECEIVES;

/** The wait after failed attempt `attempt` (1-based), within what one visibility change can do. */
export function retryDelay(p: DeliveryPolicy, attempt: number): number {
  const s = p.retrySeconds[Math.min(attempt, p.retrySeconds.length) - 1] ?? 0;
  return Math.min(Math.max(1, Math.round(s)), SQS_MAX_VISIBILITY_SECONDS);
}
