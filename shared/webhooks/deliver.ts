import type { WebhookEvent } from "../ports/index.ts";
import { capDetail } from "../ports/index.ts";
import { breakerWait, openUntilAfter } from "./breaker.ts";
import { payloadFor } from "./payload.ts";
import { maxAttempts, retryDelay } from "./policy.ts";
import type { DeliverDeps, DeliveryEntry, PostFailure } from "./ports.ts";
import { signingSecrets } from "./secrets.ts";
import { signDelivery } from "./signing.ts";

/**
 * What the worker does with one delivery message. `delivered` and `dropped` are finished; `retry` and `deferred`
 * come back after `delaySeconds` (the SQS adapter changes the message's visibility); `dead-letter` goes to the DLQ.
 */
export type DeliverOutcome =
  | { readonly kind: "delivered"; readonly attempt: number }
  | { readonly kind: "dropped"; readonly reason: "endpoint-gone" | "endpoint-disabled" | "not-subscribed" }
  | {
      readonly kind: "retry";
      readonly attempt: number;
      readonly delaySeconds: number;
      readonly reason: string;
    }
  | { readonly kind: "deferred"; readonly delaySeconds: number }
  | { readonly kind: "dead-letter"; readonly attempt: number; readonly reason: string };

/** Why an attempt did not deliver, or a delivery was held or dropped: the deliveries record's `reason` (docs/reasons.md). */
export type DeliveryReason =
  | PostFailure
  | "http-status"
  | "secret-missing"
  | "circuit-open"
  | "endpoint-gone"
  | "endpoint-disabled"
  | "not-subscribed";

/** The `reason` of a `webhook-undelivered` failure report (G19). */
export type UndeliveredReason =
  | "circuit-opened"
  | "retries-exhausted"
  | "receives-exhausted"
  | "event-not-queued";

/** The failure class and metric of an event that could not be delivered (shared/ports/failures.ts). */
export const UNDELIVERED = "webhook-undelivered" as const;

const agentOf = (e: WebhookEvent): string => (typeof e.data.agent === "string" ? e.data.agent : "");

export async function deliverEvent(
  endpointId: string,
  event: WebhookEvent,
  deps: DeliverDeps,
): Promise<DeliverOutcome> {
  const now = deps.clock();
  const record = (e: Omit<DeliveryEntry, "at" | "eventId" | "type">) =>
    deps.log.record(endpointId, { at: now.toISOString(), eventId: event.id, type: event.type, ...e });

  // Read at delivery, not at fan-out: a removed, disabled or unsubscribed endpoint gets nothing more.
  const endpoint = await deps.endpoint(endpointId);
  const dropped =
    endpoint === null
      ? "endpoint-gone"
      : !endpoint.enabled
        ? "endpoint-disabled"
        : event.type !== "webhook.test" && !endpoint.events.includes(event.type)
          ? "not-subscribed"
          : null;
  if (dropped !== null || endpoint === null) {
    const reason = dropped ?? "endpoint-gone";
    await record({ attempt: 0, outcome: "dropped", reason });
    return { kind: "dropped", reason };
  }

  const breaker = await deps.breaker.get(endpointId);
  const wait = breakerWait(breaker, now);
  // Open, or past its cool-down with another delivery already probing: wait without spending an attempt.
  const probing =
    wait === 0 && breaker.openUntil !== undefined
      ? await deps.breaker.claimProbe(endpointId, breaker.openUntil, openUntilAfter(now, deps.policy))
      : true;
  if (wait > 0 || !probing) {
    await record({ attempt: 0, outcome: "deferred", reason: "circuit-open" });
    return { kind: "deferred", delaySeconds: wait > 0 ? wait : deps.policy.breakerCooldownSeconds };
  }

  const secrets = await deps.secrets.read(endpointId);
  const attempt = await deps.attempts.next(endpointId, event.id);
  const body = payloadFor(event, endpoint.includeMailText);
  const started = Date.now();
  const result = secrets
    ? await deps.post(
        endpoint.url,
        {
          ...signDelivery(signingSecrets(secrets, now), event.id, now, body),
          "content-type": "application/json",
          "user-agent": "Postern-Webhooks/1",
        },
        body,
        deps.policy.timeoutMs,
      )
    : ({
        ok: false,
        reason: "secret-missing",
        detail: "no signing secret stored for this endpoint",
      } as const);
  const ms = Date.now() - started;

  if (result.ok && result.status >= 200 && result.status < 300) {
    await record({ attempt, outcome: "delivered", status: result.status, ms });
    if (breaker.failures > 0) await deps.breaker.close(endpointId);
    return { kind: "delivered", attempt };
  }
  // Any non-2xx is a failure, redirects included: following one would send the signed body to a host nobody vetted.
  const reason = result.ok ? "http-status" : result.reason;
  const detail = capDetail(result.ok ? `HTTP ${result.status}` : result.detail);
  const status = result.ok ? { status: result.status } : {};
  const failures = await deps.breaker.countFailure(endpointId);
  const opened =
    failures >= deps.policy.breakerThreshold &&
    (await deps.breaker.open(endpointId, openUntilAfter(now, deps.policy)));
  if (opened)
    await deps.failures.report({
      class: UNDELIVERED,
      reason: "circuit-opened",
      detail: `endpoint ${endpointId}: ${failures} failed attempts in a row; last ${reason}${detail ? ` (${detail})` : ""}`,
      agent: agentOf(event),
    });
  if (attempt >= maxAttempts(deps.policy)) {
    await record({ attempt, outcome: "dead-lettered", reason, ms, ...status, ...(detail ? { detail } : {}) });
    await deps.failures.report({
      class: UNDELIVERED,
      reason: "retries-exhausted",
      detail: `endpoint ${endpointId}, event ${event.id} (${event.type}): ${attempt} attempts; last ${reason}${detail ? ` (${detail})` : ""}`,
      agent: agentOf(event),
    });
    return { kind: "dead-letter", attempt, reason };
  }
  await record({ attempt, outcome: "failed", reason, ms, ...status, ...(detail ? { detail } : {}) });
  return { kind: "retry", attempt, delaySeconds: retryDelay(deps.policy, attempt), reason };
}
