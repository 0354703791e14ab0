import * as z from "zod";
import { WEBHOOK_EVENT_TYPES, webhookId } from "../admin/index.ts";
import type { EventsMessage } from "./ports.ts";

/** The events queue's bodies, parsed with one schema by the worker (a malformed one goes to the DLQ). */
const value = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);
const event = z.object({
  id: z.string().regex(/^evt_[0-9a-f]{32}$/),
  type: z.enum([...WEBHOOK_EVENT_TYPES, "webhook.test"]),
  timestamp: z.string().min(1).max(40),
  data: z.record(z.string(), value),
  mail: z.object({ subject: z.string(), text: z.string() }).optional(),
});
const message = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("event"), event }),
  z.object({ kind: z.literal("deliver"), endpointId: webhookId, event }),
]);

export function parseEventsMessage(
  body: string,
): { ok: true; message: EventsMessage } | { ok: false; detail: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, detail: "not JSON" };
  }
  const r = message.safeParse(json);
  return r.success
    ? { ok: true, message: r.data as EventsMessage }
    : { ok: false, detail: r.error.message.slice(0, 300) };
}
