import type { WebhookItem } from "../../shared/admin/webhook-item.ts";
import type { WebhookSink } from "../../shared/ports/index.ts";
import type { EventInput } from "../../shared/ports/webhooks.ts";
import {
  type BreakerState,
  DEFAULT_POLICY,
  type DeliveryEntry,
  type DeliveryPolicy,
  type SecretStore,
} from "../../shared/webhooks/index.ts";
import type { BreakerStore, DeliverDeps, Post } from "../../shared/webhooks/ports.ts";
import type { EndpointSecrets } from "../../shared/webhooks/secrets.ts";
import { recordingFailures } from "./failures.ts";

/**
 * An event sink that records what it is asked to emit. With `dieFirst`, its first emission throws past the caller,
 * as a function killed at its emission point would stop there (a timeout, out of memory, a host gone).
 */
export function recordingEventSink(
  opts: { readonly dieFirst?: boolean } = {},
): WebhookSink & { readonly emitted: EventInput[] } {
  const emitted: EventInput[] = [];
  let died = opts.dieFirst !== true;
  return {
    emitted,
    async emit(e) {
      if (!died) {
        died = true;
        throw new Error("killed at the emission point");
      }
      emitted.push(e);
    },
  };
}

/** An in-memory secret store (the file and Secrets Manager stores keep the same shape). */
export function memorySecrets(): SecretStore & { readonly all: Map<string, EndpointSecrets> } {
  const all = new Map<string, EndpointSecrets>();
  return {
    all,
    read: async (id) => all.get(id) ?? null,
    write: async (id, s) => void all.set(id, s),
    remove: async (id) => void all.delete(id),
  };
}

/**
 * The breaker store in memory. Each method reads and writes in one synchronous step, as DynamoDB's single-item
 * updates are atomic, so racing deliveries see what the adapter would give them.
 */
export function memoryBreaker(breakers = new Map<string, BreakerState>()): BreakerStore {
  return {
    get: async (id) => breakers.get(id) ?? { failures: 0 },
    close: async (id) => void breakers.set(id, { failures: 0 }),
    async countFailure(id) {
      const b = breakers.get(id) ?? { failures: 0 };
      breakers.set(id, { ...b, failures: b.failures + 1 });
      return b.failures + 1;
    },
    async open(id, until) {
      const b = breakers.get(id) ?? { failures: 0 };
      breakers.set(id, { ...b, openUntil: until });
      return b.openUntil === undefined;
    },
    async claimProbe(id, seen, until) {
      const b = breakers.get(id);
      if (b?.openUntil !== seen) return false;
      breakers.set(id, { ...b, openUntil: until });
      return true;
    },
  };
}

/** Every port of the delivery core, in memory, recording what it was asked (STYLE.md §16). */
export function fakeDeliverDeps(opts: {
  readonly endpoints: WebhookItem[];
  readonly post: Post;
  readonly policy?: Partial<DeliveryPolicy>;
  readonly now: () => Date;
}) {
  const secrets = memorySecrets();
  const attempts = new Map<string, number>();
  const breakers = new Map<string, BreakerState>();
  const entries = new Map<string, DeliveryEntry[]>();
  const failures = recordingFailures();
  const deps: DeliverDeps = {
    endpoint: async (id) => opts.endpoints.find((e) => e.id === id) ?? null,
    secrets,
    post: opts.post,
    attempts: {
      async next(endpointId, eventId) {
        const k = `${endpointId}\n${eventId}`;
        attempts.set(k, (attempts.get(k) ?? 0) + 1);
        return attempts.get(k) as number;
      },
    },
    breaker: memoryBreaker(breakers),
    log: {
      record: async (id, e) => void entries.set(id, [...(entries.get(id) ?? []), e]),
      recent: async (id, limit) => [...(entries.get(id) ?? [])].reverse().slice(0, limit),
    },
    failures,
    policy: { ...DEFAULT_POLICY, ...opts.policy },
    clock: opts.now,
  };
  return { deps, secrets, breakers, entries, failures };
}
