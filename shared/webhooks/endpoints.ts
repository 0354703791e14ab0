import {
  type AdminCatalog,
  type AdminIssue,
  type AdminTables,
  checkAdminWrite,
  type WebhookTable,
} from "../admin/index.ts";
import type { WebhooksPayload } from "../payloads/index.ts";
import { toEvent } from "../ports/index.ts";
import { type Fail, fail, failWith, type Ok } from "../result.ts";
import { type EndpointReachOptions, endpointReach } from "./endpoint-reach.ts";
import { rotated, type SecretStore } from "./secrets.ts";
import { newSecret } from "./signing.ts";

/**
 * Registering, rotating and removing a webhook endpoint, as `postern webhooks` and the console both do it: the one
 * admin write check, then the signing secret, then the item. The secret is returned to the caller to show once (a
 * file for the CLI, a no-store page for the console); it never reaches the admin table, a log or the audit (G16).
 */
export interface EndpointPorts {
  readonly repo: Pick<WebhookTable, "getWebhook" | "putWebhook" | "deleteWebhook"> &
    Pick<AdminTables, "rawItems" | "logger">;
  readonly secrets: SecretStore;
}

/** What an operator gives for an endpoint; `events` is a list of types, or `["all"]`. */
export interface EndpointInput {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly includeMailText?: boolean;
  readonly enabled?: boolean;
  readonly description?: string | undefined;
}

export type EndpointWriteFailure =
  | Fail<"invalid", { readonly issues: readonly AdminIssue[] }>
  | Fail<"exists">
  | Fail<"not-found">
  | Fail<"not-written">;

/**
 * The id names the endpoint's secret (`postern/webhooks/<id>`), and Secrets Manager appends `-` and six random
 * characters to a secret's ARN: CreateSecret's documentation advises against a name that already ends that way
 * (a partial-ARN lookup may then match the wrong secret). Refused for new endpoints only; an item already stored
 * keeps working.
 */
const SUFFIX_LIKE = /-.{6}$/;
const SUFFIX_MESSAGE =
  "must not end with a hyphen and six characters (Secrets Manager appends one to the secret's ARN; CreateSecret advises against it)";

/** The admin item an input describes (`all` expands to every type an endpoint can subscribe to). */
export function endpointItem(a: EndpointInput, allTypes: readonly string[]): Record<string, unknown> {
  const events = a.events.length === 1 && a.events[0] === "all" ? [...allTypes] : [...a.events];
  return {
    id: a.id,
    url: a.url,
    events,
    includeMailText: a.includeMailText === true,
    enabled: a.enabled !== false,
    ...(a.description ? { description: a.description } : {}),
  };
}

/**
 * A new endpoint: checked as every admin write is, then its fresh secret stored BEFORE the item is written, so an
 * endpoint is never live without a way to sign for it. `beforeStore` runs after the check and before anything is
 * stored (the CLI writes the secret's file there, the console records its audit entry; a throw leaves nothing
 * behind). A failed item write takes the secret back out.
 */
export async function addEndpoint(
  p: EndpointPorts,
  item: Record<string, unknown>,
  opts: {
    readonly catalog: AdminCatalog;
    /** Where its deliveries may go: an endpoint none could reach is refused here, not at every event. */
    readonly reach: EndpointReachOptions;
    readonly beforeStore?: (secret: string) => void | Promise<void>;
  },
): Promise<Ok<{ readonly secret: string }> | EndpointWriteFailure> {
  const check = await checkAdminWrite(p.repo, { webhooks: [item] }, { catalog: opts.catalog });
  if (!check.ok) return failWith("invalid", { issues: check.issues });
  const reach = await endpointReach(String(item.url), opts.reach);
  if (!reach.ok) {
    p.repo.logger.warn("webhook endpoint refused", { id: String(item.id), reason: reach.reason });
    return failWith("invalid", { issues: [{ path: "webhooks[0].url", message: reach.detail }] });
  }
  const id = String(item.id);
  if (SUFFIX_LIKE.test(id))
    return failWith("invalid", { issues: [{ path: "webhooks[0].id", message: SUFFIX_MESSAGE }] });
  if (await p.repo.getWebhook(id)) return fail("exists");
  const secret = newSecret();
  await opts.beforeStore?.(secret);
  await p.secrets.write(id, { current: secret });
  const r = await p.repo.putWebhook(item, { ifAbsent: true });
  if (!r.ok) {
    await p.secrets.remove(id);
    return r.reason === "duplicate" ? fail("exists") : fail("not-written");
  }
  return { ok: true, secret };
}

/**
 * A fresh secret for an endpoint; the old one keeps signing for `overlapHours` (both signatures on every delivery),
 * so the receiver switches at its own pace. An endpoint with no secret yet (written by `admin import`) gets its first.
 */
export async function rotateEndpoint(
  p: EndpointPorts,
  id: string,
  opts: {
    readonly overlapHours: number;
    readonly now: Date;
    readonly beforeStore?: (secret: string) => void | Promise<void>;
  },
): Promise<Ok<{ readonly secret: string; readonly previousUntil?: string }> | Fail<"not-found">> {
  if (!(await p.repo.getWebhook(id))) return fail("not-found");
  const stored = await p.secrets.read(id);
  const secret = newSecret();
  await opts.beforeStore?.(secret);
  const next = stored ? rotated(stored, secret, opts.now, opts.overlapHours * 3600) : { current: secret };
  await p.secrets.write(id, next);
  return { ok: true, secret, ...(next.previousUntil ? { previousUntil: next.previousUntil } : {}) };
}

/** The item, then its secrets: a removed endpoint's queued deliveries are dropped, and nothing signs for it. */
export async function removeEndpoint(p: EndpointPorts, id: string): Promise<boolean> {
  const removed = await p.repo.deleteWebhook(id);
  await p.secrets.remove(id);
  return removed;
}

/** The longest overlap a rotation keeps the old secret signing (a week). */
export const MAX_OVERLAP_HOURS = 24 * 7;

/** A `webhook.test` event for one endpoint, as a delivery message: it reaches the tested endpoint only. */
export function testDelivery(endpointId: string, sentBy: string, at: Date): WebhooksPayload {
  const event = toEvent(
    {
      type: "webhook.test",
      key: `${endpointId}#${at.toISOString()}`,
      data: { endpoint: endpointId, sentBy },
    },
    at,
  );
  return { kind: "deliver", endpointId, event };
}
