import type { Hono } from "hono";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { page } from "../views/layout.ts";
import { webhookForm, webhookRemoveConfirm } from "../views/webhook-forms.ts";
import { webhooksView } from "../views/webhooks.ts";
import { ctxOf } from "./context.ts";

/** Signed events: each endpoint's breaker and recent deliveries; for admins, the forms that change them. */
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
    return c.html(
      page(
        "Webhooks",
        ctxOf(c),
        webhooksView(views, deps.now(), {
          csrf: c.get("csrf"),
          canWrite: canWrite(c.get("principal")),
          canTest: deps.enqueueEvent !== null,
        }),
      ),
    );
  });

  app.get("/webhooks/:id/edit", async (c) => {
    const w = await deps.admin.getWebhook(c.req.param("id"));
    if (!w || !canWrite(c.get("principal"))) return c.notFound();
    return c.html(page(`Edit webhook ${w.id}`, ctxOf(c), webhookForm(c.get("csrf"), w, "edit")));
  });

  // Remove asks first (a GET changes nothing); only the confirmation's form carries confirm=yes.
  app.get("/webhooks/:id/remove", async (c) => {
    const w = await deps.admin.getWebhook(c.req.param("id"));
    if (!w || !canWrite(c.get("principal"))) return c.notFound();
    return c.html(page("Remove?", ctxOf(c), webhookRemoveConfirm(c.get("csrf"), w.id)));
  });
}
