import type { WebhookItem } from "../admin/index.ts";
import type { WebhooksPayload } from "../payloads/index.ts";
import type { WebhookEvent } from "../ports/index.ts";

/**
 * One event → one delivery message per enabled endpoint subscribed to its type, so each endpoint retries, backs
 * off and breaks on its own. Mail text goes on only to endpoints that opted in: the others' messages never hold it.
 */
export function fanOut(event: WebhookEvent, endpoints: readonly WebhookItem[]): WebhooksPayload[] {
  const { mail, ...bare } = event;
  return endpoints
    .filter((e) => e.enabled && event.type !== "webhook.test" && e.events.includes(event.type))
    .map((e) => ({
      kind: "deliver" as const,
      endpointId: e.id,
      event: e.includeMailText && mail ? { ...bare, mail } : bare,
    }));
}
