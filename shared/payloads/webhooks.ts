import * as z from "zod";
import { WEBHOOK_EVENT_TYPES, webhookId } from "../admin/index.ts";
import type { WebhookEvent } from "../ports/index.ts";
import { type PayloadResult, parsePayload } from "./parse-payload.ts";

/** The events queue's two payloads: an event to fan out to its endpoints, and one endpoint's delivery of it. */
export type WebhooksPayload =
  | { readonly kind: "event"; readonly event: WebhookEvent }
  | { readonly kind: "deliver"; readonly endpointId: string; readonly event: WebhookEvent };

const value = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);
const event = z.object({
  id: z.string().regex(/^evt_[0-9a-f]{32}$/),
  type: z.enum([...WEBHOOK_EVENT_TYPES, "webhook.test"]),
  timestamp: z.string().min(1).max(40),
  data: z.record(z.string(), value),
  mail: z.object({ subject: z.string(), text: z.string() }).optional(),
});
const webhooksPayloadSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("event"), event }),
  z.object({ kind: z.literal("deliver"), endpointId: webhookId, event }),
]);

/** An events-queue body → its payload, or why not (a malformed one goes to the DLQ, reported). */
export function parseWebhooksPayload(body: string): PayloadResult<WebhooksPayload> {
  return parsePayload(body, webhooksPayloadSchema as z.ZodType<WebhooksPayload>);
}
