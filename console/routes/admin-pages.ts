import type { Hono } from "hono";
import type { AdminSnapshot } from "../../shared/admin/index.ts";
import { ADMIN_KINDS, type AdminKind } from "../admin-edit.ts";
import { keyFromForm } from "../admin-form.ts";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { adminView, agentForm, removeConfirm, responsibilityForm, toolkitForm } from "../views/admin.ts";
import { auditView } from "../views/audit.ts";
import { page } from "../views/layout.ts";
import { ctxOf, limitOf } from "./context.ts";

/** The admin tables' forms and the audit log. */
export function adminPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/admin", async (c) => {
    const s = await deps.admin.snapshot();
    return c.html(
      page(
        "Admin",
        ctxOf(c),
        adminView(s, {
          csrf: c.get("csrf"),
          canWrite: canWrite(c.get("principal")),
          models: deps.catalog.models,
        }),
      ),
    );
  });

  app.get("/admin/agents/edit", async (c) => {
    const a = await deps.admin.getAgent(c.req.query("address") ?? "");
    if (!a || !canWrite(c.get("principal"))) return c.notFound();
    return c.html(
      page(`Edit ${a.address}`, ctxOf(c), agentForm(c.get("csrf"), a, "edit", deps.catalog.models)),
    );
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

  app.get("/admin/:kind/remove", async (c) => {
    const kind = c.req.param("kind");
    if (!(ADMIN_KINDS as readonly string[]).includes(kind) || !canWrite(c.get("principal")))
      return c.notFound();
    const k = kind as AdminKind;
    const fields = Object.fromEntries(
      Object.entries(c.req.query()).filter(([name]) => REMOVE_FIELDS[k].includes(name)),
    );
    const key = keyFromForm(k, fields);
    if (!(await deps.admin.rawGet(k, key))) return c.notFound();
    const s = await deps.admin.snapshot();
    const { what, also } = removal(k, fields, s);
    return c.html(page("Remove?", ctxOf(c), removeConfirm(c.get("csrf"), k, fields, what, also)));
  });

  app.get("/audit", async (c) => {
    const p = await deps.audit.list({ limit: limitOf(c), cursor: c.req.query("cursor") });
    return c.html(page("Audit log", ctxOf(c), auditView(p)));
  });
}

/** The fields that name an item on a delete form (admin-form.ts keyFromForm). */
const REMOVE_FIELDS: Record<AdminKind, readonly string[]> = {
  agents: ["address"],
  accessRules: ["agent", "effect", "pattern"],
  outboundRules: ["agent", "effect", "pattern"],
  toolkits: ["id"],
  responsibilities: ["id"],
  approvers: ["toolkit", "address"],
};

/** What a removal takes with it, as the repository's cascade does (shared/store/admin-repo.ts). */
function removal(
  kind: AdminKind,
  f: Record<string, string>,
  s: AdminSnapshot,
): { what: string; also: string[] } {
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  switch (kind) {
    case "agents": {
      const a = f.address ?? "";
      const toolkits = s.toolkits.filter((k) => k.agents.includes(a));
      return {
        what: `the agent ${a}`,
        also: [
          n(s.accessRules.filter((r) => r.agent === a).length, "access rule", "access rules"),
          n(s.outboundRules.filter((r) => r.agent === a).length, "outbound rule", "outbound rules"),
          ...(toolkits.length > 0
            ? [
                `its place in ${n(toolkits.length, "toolkit", "toolkits")}: ${toolkits.map((k) => k.id).join(", ")}`,
              ]
            : []),
        ],
      };
    }
    case "toolkits": {
      const approvers = s.approvers.filter((x) => x.toolkit === f.id);
      return {
        what: `the toolkit ${f.id}`,
        also:
          approvers.length > 0
            ? [
                `${n(approvers.length, "approver", "approvers")}: ${approvers.map((x) => x.address).join(", ")}`,
              ]
            : [],
      };
    }
    case "accessRules":
    case "outboundRules":
      return {
        what: `the ${kind === "accessRules" ? "access" : "outbound"} rule ${f.effect} ${f.pattern} of ${f.agent}`,
        also: [],
      };
    case "approvers":
      return { what: `the approver ${f.address} of toolkit ${f.toolkit}`, also: [] };
    case "responsibilities":
      return { what: `the responsibility ${f.id}`, also: [] };
  }
}
