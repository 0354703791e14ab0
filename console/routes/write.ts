import type { Context, Hono } from "hono";
import type { AdminIssue } from "../../shared/admin/issues.ts";
import { ruleKey } from "../../shared/admin/read.ts";
import { ADMIN_KINDS, type AdminKind, deleteAdminItem, putAdminItem } from "../admin-edit.ts";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { decidePlan } from "../plan-decision.ts";
import { adminView, agentForm, editIssues, responsibilityForm, toolkitForm } from "../views/admin.ts";
import { html, seg } from "../views/html.ts";
import { page } from "../views/layout.ts";
import { ctxOf } from "./context.ts";

type Form = Record<string, string | File | (string | File)[]>;

const text = (f: Form, k: string): string => (typeof f[k] === "string" ? (f[k] as string).trim() : "");
const list = (f: Form, k: string): string[] =>
  text(f, k)
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
/** An empty number field means "not set" (the global cap applies); anything else must parse or fail validation. */
const optionalNumber = (f: Form, k: string): number | string | undefined => {
  const v = text(f, k);
  if (v === "") return undefined;
  return /^\d+$/.test(v) ? Number(v) : v;
};
const flag = (f: Form, k: string): boolean => f[k] === "on";

/** Form fields → the admin item the import schema validates (types only; validation is the schema's). */
function itemFromForm(kind: AdminKind, f: Form): Record<string, unknown> {
  const drop = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  switch (kind) {
    case "agents":
      return drop({
        address: text(f, "address").toLowerCase(),
        name: text(f, "name"),
        model: text(f, "model"),
        instructions: typeof f.instructions === "string" ? f.instructions : "",
        maxToolTurns: optionalNumber(f, "maxToolTurns"),
        runsPerDay: optionalNumber(f, "runsPerDay"),
        tokensPerDay: optionalNumber(f, "tokensPerDay"),
        enabled: flag(f, "enabled"),
        acceptAutoSubmitted: flag(f, "acceptAutoSubmitted"),
        acceptListMail: flag(f, "acceptListMail"),
        acceptBcc: flag(f, "acceptBcc"),
      });
    case "accessRules":
    case "outboundRules":
      return {
        agent: text(f, "agent").toLowerCase(),
        pattern: text(f, "pattern").toLowerCase(),
        effect: text(f, "effect"),
      };
    case "toolkits":
      return drop({
        id: text(f, "id"),
        name: text(f, "name") || undefined,
        tools: list(f, "tools"),
        agents: list(f, "agents").map((a) => a.toLowerCase()),
        senderRules: text(f, "senderRules")
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean)
          .map((l) => {
            const [effect = "", pattern = ""] = l.split(/\s+/, 2);
            return { effect, pattern: pattern.toLowerCase() };
          }),
        allowScheduled: flag(f, "allowScheduled"),
        confirmBySender: flag(f, "confirmBySender"),
      });
    case "approvers":
      return { toolkit: text(f, "toolkit"), address: text(f, "address").toLowerCase() };
    case "responsibilities":
      return {
        id: text(f, "id"),
        agent: text(f, "agent").toLowerCase(),
        schedule: text(f, "schedule"),
        prompt: typeof f.prompt === "string" ? f.prompt : "",
        enabled: flag(f, "enabled"),
      };
  }
}

function keyFromForm(kind: AdminKind, f: Form): Record<string, string> {
  switch (kind) {
    case "agents":
      return { address: text(f, "address") };
    case "accessRules":
    case "outboundRules":
      return { agent: text(f, "agent"), rule: ruleKey(text(f, "effect"), text(f, "pattern")) };
    case "toolkits":
    case "responsibilities":
      return { id: text(f, "id") };
    case "approvers":
      return { toolkit: text(f, "toolkit"), address: text(f, "address") };
  }
}

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

  // Apply or Cancel a pending plan: any signed-in approver of the plan (the group does not make an approver).
  for (const [path, decision] of [
    ["apply", "approve"],
    ["cancel", "cancel"],
  ] as const) {
    app.post(`/plans/:runId/${path}`, async (c) => {
      const runId = c.req.param("runId");
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
        ? agentForm(csrf, item, "edit")
        : kind === "toolkits"
          ? toolkitForm(csrf, item, "edit")
          : responsibilityForm(csrf, item, "edit");
    return c.html(page("Not saved", ctxOf(c), html`${editIssues(issues)}${form}`), 400);
  }
  const s = await deps.admin.snapshot();
  return c.html(
    page("Admin", ctxOf(c), adminView(s, { csrf, canWrite: true, issues: { kind, issues } })),
    400,
  );
}
