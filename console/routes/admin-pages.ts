import type { Hono } from "hono";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { adminView, agentForm, responsibilityForm, toolkitForm } from "../views/admin.ts";
import { auditView } from "../views/audit.ts";
import { page } from "../views/layout.ts";
import { ctxOf, limitOf } from "./context.ts";

/** The admin tables' forms and the audit log. */
export function adminPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/admin", async (c) => {
    const s = await deps.admin.snapshot();
    return c.html(
      page("Admin", ctxOf(c), adminView(s, { csrf: c.get("csrf"), canWrite: canWrite(c.get("principal")) })),
    );
  });

  app.get("/admin/agents/edit", async (c) => {
    const a = await deps.admin.getAgent(c.req.query("address") ?? "");
    if (!a || !canWrite(c.get("principal"))) return c.notFound();
    return c.html(page(`Edit ${a.address}`, ctxOf(c), agentForm(c.get("csrf"), a, "edit")));
  });
  app.get("/admin/toolkits/edit", async (c) => {
    const k = await deps.admin.getToolkit(c.req.query("id") ?? "");
    if (!k || !canWrite(c.get("principal"))) return c.notFound();
    return c.html(page(`Edit toolkit ${k.id}`, ctxOf(c), toolkitForm(c.get("csrf"), k, "edit")));
  });
  app.get("/admin/responsibilities/edit", async (c) => {
    const id = c.req.query("id") ?? "";
    const r = (await deps.admin.listResponsibilities()).find((x) => x.id === id);
    if (!r || !canWrite(c.get("principal"))) return c.notFound();
    return c.html(
      page(`Edit responsibility ${r.id}`, ctxOf(c), responsibilityForm(c.get("csrf"), r, "edit")),
    );
  });

  app.get("/audit", async (c) => {
    const p = await deps.audit.list({ limit: limitOf(c), cursor: c.req.query("cursor") });
    return c.html(page("Audit log", ctxOf(c), auditView(p)));
  });
}
