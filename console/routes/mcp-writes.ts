import type { Context, Hono } from "hono";
import type { AdminIssue } from "../../shared/admin/index.ts";
import { type McpServerItem, mcpServerItem, pinTools, reviewStates } from "../../shared/mcp/index.ts";
import { deleteAdminItem, putAdminItem } from "../admin-edit.ts";
import { type Form, formText } from "../admin-form.ts";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { checkedReach, choicesFromForm, listForReview, serverFromForm } from "../mcp-review.ts";
import { page } from "../views/layout.ts";
import { mcpAddForm, mcpReviewPage } from "../views/mcp.ts";
import { ctxOf } from "./context.ts";

const formValues = (f: Form): Record<string, string> =>
  Object.fromEntries(Object.entries(f).filter((e): e is [string, string] => typeof e[1] === "string"));

/**
 * MCP servers from the console (docs/mcp.md): add (connect, list, review, then save the chosen tools pinned), review
 * again, remove. Admins only, after the middleware's session, Origin and CSRF checks; saves go through the one admin
 * write check and the audit log, as `postern mcp add|review` and `admin import` write.
 */
export function mcpWrites(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const denied = (c: Context<ConsoleEnv>) => c.text("changing MCP servers needs the admins group", 403);
  const addAgain = (c: Context<ConsoleEnv>, f: Form, issues: readonly AdminIssue[]) =>
    c.html(page("Add an MCP server", ctxOf(c), mcpAddForm(c.get("csrf"), formValues(f), issues)), 400);

  // Connect and list: nothing is written until the review page is saved.
  app.post("/mcp/add", async (c) => {
    if (!canWrite(c.get("principal"))) return denied(c);
    const form = (await c.req.parseBody()) as Form;
    const server = serverFromForm(form, deps.mcp.loopbackHttp);
    if (!server.ok) return addAgain(c, form, server.issues);
    if ((await deps.admin.listMcpServers()).some((s) => s.id === server.item.id))
      return addAgain(c, form, [{ path: "id", message: "already exists: review it instead" }]);
    const listed = await listForReview(deps, server.item);
    if (!listed.ok) return addAgain(c, form, listed.issues);
    return c.html(
      page(
        `Review ${server.item.id}`,
        ctxOf(c),
        mcpReviewPage(c.get("csrf"), server.item, "add", reviewStates(listed.tools, [])),
      ),
    );
  });

  app.post("/mcp/save", async (c) => {
    if (!canWrite(c.get("principal"))) return denied(c);
    const form = (await c.req.parseBody()) as Form;
    const mode = form.mode === "add" ? "add" : "review";
    let server: McpServerItem | undefined;
    if (mode === "add") {
      let raw: unknown;
      try {
        raw = JSON.parse(formText(form, "server"));
      } catch {
        return c.text("the review form is damaged: start again", 400);
      }
      const parsed = mcpServerItem.safeParse(raw);
      if (!parsed.success) return c.text("the review form is damaged: start again", 400);
      const reach = checkedReach({ ...parsed.data, tools: [] }, deps.mcp.loopbackHttp);
      if (!reach.ok) return c.text(reach.issues.map((i) => `${i.path}: ${i.message}`).join("\n"), 400);
      server = reach.item;
    } else {
      server = (await deps.admin.listMcpServers()).find((s) => s.id === formText(form, "id"));
      if (!server) return c.notFound();
      const reach = checkedReach(server, deps.mcp.loopbackHttp);
      if (!reach.ok) return c.text(reach.issues.map((i) => `${i.path}: ${i.message}`).join("\n"), 400);
    }
    // The server is listed again: what is pinned is what it lists now, checked against what the page showed.
    const listed = await listForReview(deps, server);
    const again = (issues: readonly AdminIssue[], tools = listed.ok ? listed.tools : []) =>
      c.html(
        page(
          `Review ${server.id}`,
          ctxOf(c),
          mcpReviewPage(c.get("csrf"), server, mode, reviewStates(tools, server.tools), issues),
        ),
        400,
      );
    if (!listed.ok) return again(listed.issues);
    const chosen = choicesFromForm(form, listed.tools);
    if (!chosen.ok) return again(chosen.issues);
    const pins = pinTools(server.id, listed.tools, chosen.choices, deps.now());
    if (!pins.ok) return again([{ path: "tools", message: pins.detail }]);
    const item = { ...server, tools: [...pins.pins] };
    const r = await putAdminItem(
      "mcpServers",
      item,
      mode === "add" ? "create" : "edit",
      c.get("principal"),
      deps,
      { whole: true },
    );
    if (r.ok) return c.redirect("/admin?done=saved#mcpServers", 303);
    if ("notFound" in r) return c.notFound();
    return again(r.issues);
  });

  app.post("/mcp/:id/delete", async (c) => {
    if (!canWrite(c.get("principal"))) return denied(c);
    const form = (await c.req.parseBody()) as Form;
    // Only the confirmation page's form carries confirm=yes: a bare POST removes nothing.
    if (form.confirm !== "yes") return c.redirect("/admin?done=not-removed#mcpServers", 303);
    const r = await deleteAdminItem("mcpServers", { id: c.req.param("id") }, c.get("principal"), deps);
    if (!r.ok) return c.notFound();
    return c.redirect("/admin?done=removed#mcpServers", 303);
  });
}
