import type { Hono } from "hono";
import { reviewStates } from "../../shared/mcp/index.ts";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { checkedReach, listForReview } from "../mcp-review.ts";
import { editIssues } from "../views/admin.ts";
import { html } from "../views/html.ts";
import { page } from "../views/layout.ts";
import { mcpAddForm, mcpRemoveConfirm, mcpReviewPage } from "../views/mcp.ts";
import { ctxOf } from "./context.ts";

/** The MCP server forms (admins): add, review against the pins (lists the live server), remove (asks first). */
export function mcpPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/mcp/add", (c) => {
    if (!canWrite(c.get("principal"))) return c.notFound();
    return c.html(page("Add an MCP server", ctxOf(c), mcpAddForm(c.get("csrf"))));
  });

  app.get("/mcp/:id/review", async (c) => {
    if (!canWrite(c.get("principal"))) return c.notFound();
    const server = (await deps.admin.listMcpServers()).find((s) => s.id === c.req.param("id"));
    if (!server) return c.notFound();
    const reach = checkedReach(server, deps.mcp.loopbackHttp);
    const listed = reach.ok ? await listForReview(deps, server) : reach;
    if (!listed.ok)
      return c.html(
        page(
          `Review ${server.id}`,
          ctxOf(c),
          html`${editIssues(listed.issues)}<p>Review it with <code>postern mcp review ${server.id}</code>.</p>`,
        ),
        400,
      );
    return c.html(
      page(
        `Review ${server.id}`,
        ctxOf(c),
        mcpReviewPage(c.get("csrf"), server, "review", reviewStates(listed.tools, server.tools)),
      ),
    );
  });

  app.get("/mcp/:id/remove", async (c) => {
    if (!canWrite(c.get("principal"))) return c.notFound();
    const server = (await deps.admin.listMcpServers()).find((s) => s.id === c.req.param("id"));
    if (!server) return c.notFound();
    return c.html(page("Remove?", ctxOf(c), mcpRemoveConfirm(c.get("csrf"), server.id)));
  });
}
