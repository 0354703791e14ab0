import type { Context, Hono } from "hono";
import type { AdminIssue } from "../../shared/admin/index.ts";
import { ADMIN_KINDS, type AdminKind, deleteAdminItem, putAdminItem } from "../admin-edit.ts";
import { type Form, itemFromForm, keyFromForm } from "../admin-form.ts";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { alreadyDecided, decidePlan, decisionAllowed } from "../plan-decision.ts";
import { adminView, agentForm, editIssues, responsibilityForm, toolkitForm } from "../views/admin.ts";
import { html, seg } from "../views/html.ts";
import { page } from "../views/layout.ts";
import { applyConfirmView } from "../views/plan-confirm.ts";
import { ctxOf } from "./context.ts";
import { mcpWrites } from "./mcp-writes.ts";
import { webhookWrites } from "./webhook-writes.ts";

const KINDS = new Set<string>(ADMIN_KINDS);

export function writeRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  // Every admin write needs the admins group; the middleware has already checked session, Origin and CSRF.
  app.post("/admin/:kind/:op", async (c) => {
    const kind = c.req.param("kind");
    const op = c.req.param("op");
    if (!KINDS.has(kind) || !["add", "edit", "delete"].includes(op)) return c.notFound();
    const principal = c.get("principal");
    if (!canWrite(principal)) return c.text("changing the admin tables needs the admins group", 403);
    const k = kind as AdminKind;
    const form = (await c.req.parseBody()) as Form;
    if (op === "delete") {
      // Only the confirmation page's form carries `confirm=yes`: a bare POST (an old page, a stray click) removes
      // nothing.
      if (form.confirm !== "yes") return c.redirect(`/admin?done=not-removed#${k}`, 303);
      const r = await deleteAdminItem(k, keyFromForm(k, form), principal, deps);
      if (!r.ok) return c.notFound();
      return c.redirect(`/admin?done=removed#${k}`, 303);
    }
    const item = itemFromForm(k, form);
    const r = await putAdminItem(k, item, op === "add" ? "create" : "edit", principal, deps);
    if (r.ok) return c.redirect(`/admin?done=saved#${k}`, 303);
    if ("notFound" in r) return c.notFound();
    return refuse(c, deps, k, op, item, r.issues);
  });

  webhookWrites(app, deps);
  mcpWrites(app, deps);

  // Apply or Cancel a pending plan: any signed-in approver of the plan (the group does not make an approver).
  for (const [path, decision] of [
    ["apply", "approve"],
    ["cancel", "cancel"],
  ] as const) {
    app.post(`/plans/:runId/${path}`, async (c) => {
      const runId = c.req.param("runId");
      if (decision === "approve") {
        // Apply asks first, as removals do: only the confirmation page's form carries `confirm=yes`.
        const form = (await c.req.parseBody()) as Form;
        if (form.confirm !== "yes") {
          const allowed = await decisionAllowed(runId, c.get("principal"), deps);
          const reason =
            allowed.status === "refused"
              ? allowed.reason
              : (await alreadyDecided(runId, deps))
                ? "already-decided"
                : null;
          if (allowed.status === "refused" || reason)
            return c.redirect(`/plans/${seg(runId)}?done=${reason}`, 303);
          return c.html(page("Apply this plan?", ctxOf(c), applyConfirmView(allowed.plan, c.get("csrf"))));
        }
      }
      const r = await decidePlan(runId, decision, c.get("principal"), deps);
      const done = r.status === "queued" ? "queued" : r.reason;
      return c.redirect(`/plans/${seg(runId)}?done=${done}`, 303);
    });
  }
}

/** An invalid item: 400, the form again, and each problem with the field to fix. */
async function refuse(
  c: Context<ConsoleEnv>,
  deps: ConsoleDeps,
  kind: AdminKind,
  op: string,
  item: Record<string, unknown>,
  issues: readonly AdminIssue[],
) {
  const csrf = c.get("csrf");
  if (op === "edit") {
    const form =
      kind === "agents"
        ? agentForm(csrf, item, "edit", deps.catalog.models)
        : kind === "toolkits"
          ? toolkitForm(csrf, item, "edit")
          : responsibilityForm(csrf, item, "edit");
    return c.html(page("Not saved", ctxOf(c), html`${editIssues(issues)}${form}`), 400);
  }
  const s = await deps.admin.snapshot();
  return c.html(
    page(
      "Admin",
      ctxOf(c),
      adminView(s, { csrf, canWrite: true, issues: { kind, issues, item }, models: deps.catalog.models }),
    ),
    400,
  );
}
