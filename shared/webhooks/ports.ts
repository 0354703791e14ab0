import type { WebhookItem } from "../admin/index.ts";
import type { FailureSink } from "../ports/index.ts";
import type { BreakerState } from "./breaker.ts";
import type { DeliveryPolicy } from "./policy.ts";
import type { SecretStore } from "./secrets.ts";

/** One attempt's result as the deliveries record keeps it (`postern webhooks show`, the console). */
export interface DeliveryEntry {
  readonly at: string;
  readonly eventId: string;
  readonly type: string;
  readonly attempt: number;
  /** `delivered`, `failed` (will retry), `dead-lettered` (gave up), `deferred` (breaker open), `dropped`. */
  readonly outcome: "delivered" | "failed" | "dead-lettered" | "deferred" | "dropped";
  /** The HTTP status, when the receiver answered. */
  readonly status?: number;
  /** A stable reason code when not delivered: `http-status`, `timeout`, `address-not-public`, ... */
  readonly reason?: string;
  readonly detail?: string;
  readonly ms?: number;
}

export interface DeliveryLog {
  record(endpointId: string, entry: DeliveryEntry): Promise<void>;
  /** Newest first. */
  recent(endpointId: string, limit: number): Promise<DeliveryEntry[]>;
}

export interface BreakerStore {
  get(endpointId: string): Promise<BreakerState>;
  /** A delivery succeeded: no failures, not open. */
  close(endpointId: string): Promise<void>;
  /** One more consecutive failure, counted atomically (racing workers each count theirs). → the count after it. */
  countFailure(endpointId: string): Promise<number>;
  /**
   * Opens the breaker until `until` (or moves a failed probe's cool-down). → true only for the one call that found
   * it closed: the caller that opened it reports `circuit-opened`; a racing caller and a failed probe do not.
   */
  open(endpointId: string, until: string): Promise<boolean>;
  /**
   * After the cool-down, the one probe: moves `openUntil` from the value read to `until` only if no other worker did
   * first. → whether this delivery is the probe (the others keep waiting).
   */
  claimProbe(endpointId: string, seen: string, until: string): Promise<boolean>;
}

/** Counts attempts per (endpoint, event) in a table: a breaker wait or a crash is not an attempt. → this one's n. */
export interface AttemptCounter {
  next(endpointId: string, eventId: string): Promise<number>;
}

export type PostFailure =
  | "url-invalid"
  | "scheme-not-allowed"
  | "url-credentials"
  | "dns-failed"
  | "address-not-public"
  | "timeout"
  | "connection-failed";

export type PostResult =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly reason: PostFailure; readonly detail: string };

/** One POST to the endpoint's URL, host vetted and pinned as web_fetch's (shared/net), no redirects followed. */
export type Post = (
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
) => Promise<PostResult>;

export interface DeliverDeps {
  endpoint(id: string): Promise<WebhookItem | null>;
  readonly secrets: Pick<SecretStore, "read">;
  readonly post: Post;
  readonly attempts: AttemptCounter;
  readonly breaker: BreakerStore;
  readonly log: DeliveryLog;
  readonly failures: FailureSink;
  readonly policy: DeliveryPolicy;
  readonly clock: () => Date;
}
