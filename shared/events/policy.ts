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

export const DEFAULT_POLICY: DeliveryPolicy = {
  retrySeconds: [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
  breakerThreshold: 5,
  breakerCooldownSeconds: 300,
  timeoutMs: 10_000,
};

export const maxAttempts = (p: DeliveryPolicy): number => p.retrySeconds.length + 1;

/** The wait after failed attempt `attempt` (1-based), within what one visibility change can do. */
export function retryDelay(p: DeliveryPolicy, attempt: number): number {
  const s = p.retrySeconds[Math.min(attempt, p.retrySeconds.length) - 1] ?? 0;
  return Math.min(Math.max(1, Math.round(s)), SQS_MAX_VISIBILITY_SECONDS);
}
