import type { Hono } from "hono";
import { acceptedIds } from "../../shared/intake/index.ts";
import { bodyText } from "../../shared/ports/index.ts";
import { recentActivity } from "../activity.ts";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { agentsTable, agentView, runsTable, threadsTable } from "../views/agents.ts";
import { activityView } from "../views/home.ts";
import { html, pager, seg } from "../views/html.ts";
import { page } from "../views/layout.ts";
import { type ShownMessage, threadView } from "../views/thread.ts";
import { ctxOf, limitOf, today } from "./context.ts";

/** The agents, one agent (toolkits, rules, budgets today), its threads and runs, and one thread. */
export function agentPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/", async (c) => {
    const agents = await deps.admin.listAgents();
    const day = today(deps.now());
    const [rows, activity] = await Promise.all([
      Promise.all(
        agents.map(async (agent) => ({
          agent,
          today: await deps.lookups.agentBudgetToday(agent.address, day),
        })),
      ),
      recentActivity(
        deps,
        agents.map((a) => a.address),
      ),
    ]);
    const body = html`<h2>Recent activity</h2>${activityView(activity)}<h2>Agents</h2>${agentsTable(rows, deps.config)}`;
    return c.html(page("Home", ctxOf(c), body));
  });

  app.get("/agents/:agent", async (c) => {
    const address = c.req.param("agent");
    const agent = await deps.admin.getAgent(address);
    if (!agent) return c.notFound();
    const [snapshot, budget, threads, runs, deliveryEvents] = await Promise.all([
      deps.admin.snapshot(),
      deps.lookups.agentBudgetToday(address, today(deps.now())),
      deps.index.threadsByActivity(address, { limit: 10 }),
      deps.index.runsByAgent(address, { limit: 10 }),
      deps.deliveryEvents.recent(address, 20),
    ]);
    const toolkits = snapshot.toolkits.filter((k) => k.agents.includes(address));
    const detail = {
      agent,
      today: budget,
      toolkits,
      rules: snapshot.accessRules.filter((r) => r.agent === address),
      outboundRules: snapshot.outboundRules.filter((r) => r.agent === address),
      approvers: snapshot.approvers.filter((a) => toolkits.some((k) => k.id === a.toolkit)),
      responsibilities: snapshot.responsibilities.filter((r) => r.agent === address),
      threads,
      runs,
      deliveryEvents,
      mcpServers: snapshot.mcpServers,
    };
    return c.html(page(agent.address, ctxOf(c), agentView(detail, deps.config, deps.registry)));
  });

  app.get("/agents/:agent/threads", async (c) => {
    const agent = c.req.param("agent");
    const p = await deps.index.threadsByActivity(agent, { limit: limitOf(c), cursor: c.req.query("cursor") });
    const body = html`${threadsTable(agent, p.items)}${pager(`/agents/${seg(agent)}/threads`, p.next)}`;
    return c.html(page(`Threads of ${agent}`, ctxOf(c), body));
  });

  app.get("/agents/:agent/runs", async (c) => {
    const agent = c.req.param("agent");
    const p = await deps.index.runsByAgent(agent, { limit: limitOf(c), cursor: c.req.query("cursor") });
    const body = html`${runsTable(p.items)}${pager(`/agents/${seg(agent)}/runs`, p.next)}`;
    return c.html(page(`Runs of ${agent}`, ctxOf(c), body));
  });

  app.get("/agents/:agent/threads/:threadId", async (c) => {
    const agent = c.req.param("agent");
    const threadId = c.req.param("threadId");
    const [thread, p] = await Promise.all([
      deps.threads.get(agent, threadId),
      deps.index.threadMessages(agent, threadId, { limit: 20, cursor: c.req.query("cursor") }),
    ]);
    if (!thread && p.items.length === 0) return c.notFound();
    const shown: ShownMessage[] = await Promise.all(
      p.items.map(async (message) => ({
        message,
        body: message.hasHtmlOnly ? null : await bodyText(message, (k) => deps.blobs.getText(k)),
        runId:
          message.direction === "in" && message.sesMessageId
            ? acceptedIds(message.sesMessageId, agent, message.at).runId
            : null,
      })),
    );
    // A thread reads oldest first, so its next page holds later messages.
    const more = pager(`/agents/${seg(agent)}/threads/${seg(threadId)}`, p.next, {}, "Later messages");
    return c.html(
      page(
        "Thread",
        ctxOf(c),
        threadView(agent, thread, shown, {
          canDownload: canWrite(c.get("principal")),
          more,
          me: c.get("principal").email,
        }),
      ),
    );
  });
}
