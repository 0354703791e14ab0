import * as z from "zod";
import { WEBHOOK_EVENT_TYPES } from "../ports/index.ts";

/**
 * An operator's webhook endpoint (admin table `webhooks`): where signed events go (docs/events.md). The item holds
 * no secret: the signing secrets live in Secrets Manager, or the local stack's secrets file (G16), named by the id.
 */

export const webhookId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "must be a lower-case id ([a-z0-9._-])");

/**
 * The endpoint's URL. Only http(s), and no `user:pass@` (a disguise for the real host, and a secret that would be
 * stored in the admin table). Whether the host may be reached is decided at delivery, as web_fetch decides it (an
 * address can change after the item is written): public addresses only, https only in AWS.
 */
export const webhookUrl = z
  .string()
  .max(2000)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password;
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL without credentials");

export const webhookItem = z
  .object({
    id: webhookId,
    url: webhookUrl,
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length),
    /**
     * Off by default: payloads carry ids and reason codes only. On, accepted mail's subject and text (capped) travel
     * too, to a system outside Postern: an operator's deliberate choice for this endpoint, never a default.
     */
    includeMailText: z.boolean().default(false),
    enabled: z.boolean().default(true),
    description: z.string().max(200).optional(),
  })
  .loose();
export type WebhookItem = z.infer<typeof webhookItem>;
