import type { Hono } from "hono";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { page } from "../views/layout.ts";
import { webhooksView } from "../views/webhooks.ts";
import { ctxOf } from "./context.ts";

/** Signed events: each endpoint's breaker and recent deliveries (read-only; `postern webhooks` writes). */
export function webhookPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/webhooks", async (c) => {
    const endpoints = await deps.admin.listWebhooks();
    const views = await Promise.all(
      endpoints.map(async (webhook) => ({
        webhook,
        breaker: await deps.webhooks.breaker(webhook.id),
        deliveries: await deps.webhooks.recent(webhook.id, 20),
      })),
    );
    return c.html(page("Webhooks", ctxOf(c), webhooksView(views, deps.now())));
  });
}
