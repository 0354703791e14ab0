import type { Context, Hono } from "hono";
import {
  addEndpoint,
  type EndpointInput,
  endpointItem,
  endpointReach,
  MAX_OVERLAP_HOURS,
  rotateEndpoint,
  testDelivery,
  WEBHOOK_EVENT_TYPES,
} from "../../shared/webhooks/index.ts";
import { audited, deleteAdminItem, keyText, putAdminItem } from "../admin-edit.ts";
import { type Form, formText } from "../admin-form.ts";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { seg } from "../views/html.ts";
import { page } from "../views/layout.ts";
import { secretOnce, webhookForm } from "../views/webhook-forms.ts";
import { ctxOf } from "./context.ts";

/** A form's endpoint: one checkbox per event type, or all of them. */
function endpointFromForm(id: string, f: Form): EndpointInput {
  const description = formText(f, "description");
  return {
    id,
    url: formText(f, "url"),
    events: f.allEvents === "on" ? ["all"] : WEBHOOK_EVENT_TYPES.filter((t) => f[`event.${t}`] === "on"),
    includeMailText: f.includeMailText === "on",
    enabled: f.enabled === "on",
    ...(description ? { description } : {}),
  };
}

/**
 * The page that shows a signing secret: never stored by a browser or a proxy (`no-store`, whatever the defaults
 * become), and the one place the secret ever appears (G16).
 */
function secretPage(c: Context<ConsoleEnv>, title: string, body: ReturnType<typeof secretOnce>) {
  c.header("Cache-Control", "no-store");
  return c.html(page(title, ctxOf(c), body));
}

/**
 * Webhook endpoints from the console (docs/events.md): add, edit, rotate, test, remove. Admins only, after the
 * middleware's session, Origin and CSRF checks; every change goes through the one admin write check and the audit
 * log. The signing secret is made here, stored before the item (shared/webhooks addEndpoint) and shown once.
 */
export function webhookWrites(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const admin = (c: Context<ConsoleEnv>) => canWrite(c.get("principal"));
  const denied = (c: Context<ConsoleEnv>) => c.text("changing webhook endpoints needs the admins group", 403);
  const noSecrets = (c: Context<ConsoleEnv>) =>
    c.text("this console has no secret store: register endpoints with postern webhooks add", 503);

  app.post("/webhooks/add", async (c) => {
    if (!admin(c)) return denied(c);
    if (!deps.webhookSecrets) return noSecrets(c);
    const form = (await c.req.parseBody()) as Form;
    const item = endpointItem(endpointFromForm(formText(form, "id"), form), WEBHOOK_EVENT_TYPES);
    const principal = c.get("principal");
    let entry: Awaited<ReturnType<ConsoleDeps["audit"]["record"]>> | undefined;
    const secrets = deps.webhookSecrets;
    const r = await addEndpoint({ repo: deps.admin, secrets }, item, {
      catalog: deps.catalog,
      reach: deps.webhookReach,
      // Recorded after the check, before the secret or the item is stored, settled below; it holds the item only,
      // never the secret (G16).
      beforeStore: async () => {
        entry = await deps.audit.record({
          actor: principal.email,
          action: "put",
          table: "webhooks",
          key: keyText({ id: String(item.id) }),
          before: null,
          after: item,
        });
      },
    }).catch(async (err: unknown) => {
      if (entry) await deps.audit.settle(entry, "failed", String((err as Error)?.message ?? err));
      throw err;
    });
    if (entry) await deps.audit.settle(entry, r.ok ? "applied" : "failed", r.ok ? undefined : r.reason);
    if (!r.ok) {
      const issues =
        r.reason === "invalid"
          ? r.issues.map((i) => ({ ...i, path: i.path.replace(/^webhooks\[0\]\.?/, "") || "(item)" }))
          : [
              {
                path: "id",
                message: r.reason === "exists" ? "already exists: edit it instead" : "not written",
              },
            ];
      return c.html(page("Webhooks", ctxOf(c), webhookForm(c.get("csrf"), item, "create", issues)), 400);
    }
    return secretPage(c, "Endpoint added", secretOnce(String(item.id), r.secret, "added"));
  });

  app.post("/webhooks/:id/edit", async (c) => {
    if (!admin(c)) return denied(c);
    const id = c.req.param("id");
    const form = (await c.req.parseBody()) as Form;
    const item = endpointItem(endpointFromForm(id, form), WEBHOOK_EVENT_TYPES);
    // An edited URL meets the rule a new one does (addEndpoint): one no delivery could reach is not stored.
    const reach = await endpointReach(String(item.url), deps.webhookReach);
    if (!reach.ok)
      return c.html(
        page(
          `Edit webhook ${id}`,
          ctxOf(c),
          webhookForm(c.get("csrf"), item, "edit", [{ path: "url", message: reach.detail }]),
        ),
        400,
      );
    const r = await putAdminItem("webhooks", item, "edit", c.get("principal"), deps, { whole: true });
    if (r.ok) return c.redirect(`/webhooks?done=saved#${seg(id)}`, 303);
    if ("notFound" in r) return c.notFound();
    return c.html(
      page(`Edit webhook ${id}`, ctxOf(c), webhookForm(c.get("csrf"), item, "edit", r.issues)),
      400,
    );
  });

  app.post("/webhooks/:id/rotate", async (c) => {
    if (!admin(c)) return denied(c);
    if (!deps.webhookSecrets) return noSecrets(c);
    const id = c.req.param("id");
    const form = (await c.req.parseBody()) as Form;
    const hours = Number(formText(form, "overlapHours") || "24");
    if (!(Number.isInteger(hours) && hours >= 0 && hours <= MAX_OVERLAP_HOURS))
      return c.text(`the overlap is a whole number of hours, 0 to ${MAX_OVERLAP_HOURS}`, 400);
    const before = await deps.admin.getWebhook(id);
    if (!before) return c.notFound();
    const secrets = deps.webhookSecrets;
    const r = await audited(
      deps,
      {
        actor: c.get("principal").email,
        action: "rotate-secret",
        table: "webhooks",
        key: keyText({ id }),
        before,
        after: before,
      },
      async () => {
        const rotated = await rotateEndpoint({ repo: deps.admin, secrets }, id, {
          overlapHours: hours,
          now: deps.now(),
        });
        return rotated.ok ? rotated : { ...rotated, failed: rotated.reason };
      },
    );
    if (!r.ok) return c.notFound();
    return secretPage(c, "Secret rotated", secretOnce(id, r.secret, "rotated", r.previousUntil));
  });

  // As `postern webhooks test`: a webhook.test event on the events queue, for this endpoint only.
  app.post("/webhooks/:id/test", async (c) => {
    if (!admin(c)) return denied(c);
    const id = c.req.param("id");
    const enqueue = deps.enqueueEvent;
    if (!enqueue) return c.text("this stack has no events queue (deploy or restart it)", 503);
    const hook = await deps.admin.getWebhook(id);
    if (!hook) return c.notFound();
    const principal = c.get("principal");
    await audited(
      deps,
      {
        actor: principal.email,
        action: "send-test-event",
        table: "webhooks",
        key: keyText({ id }),
        before: hook,
        after: hook,
      },
      async () => {
        // The receiver learns only that the console sent it; who did is the audit log's (an operator's address is
        // not the receiver's business).
        await enqueue(testDelivery(id, "postern console", deps.now()));
        return { ok: true };
      },
    );
    return c.redirect(`/webhooks?done=test-queued#${seg(id)}`, 303);
  });

  app.post("/webhooks/:id/delete", async (c) => {
    if (!admin(c)) return denied(c);
    const id = c.req.param("id");
    const form = (await c.req.parseBody()) as Form;
    // Only the confirmation page's form carries confirm=yes: a bare POST (an old page, a stray click) removes nothing.
    if (form.confirm !== "yes") return c.redirect(`/webhooks?done=not-removed#${seg(id)}`, 303);
    if (!deps.webhookSecrets) return noSecrets(c);
    const r = await deleteAdminItem("webhooks", { id }, c.get("principal"), deps);
    if (!r.ok) return c.notFound();
    return c.redirect("/webhooks?done=removed", 303);
  });
}
