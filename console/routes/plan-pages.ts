import type { Hono } from "hono";
import { approversFor } from "../../shared/agent/apply-plan.ts";
import { routingKey } from "../../shared/mail/routing-key.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { page } from "../views/layout.ts";
import { plansView, planView } from "../views/plans.ts";
import { ctxOf, limitOf } from "./context.ts";

/** Pending plans, and one plan's confirm card with Apply/Cancel for its approvers. */
export function planPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/plans", async (c) => {
    const p = await deps.index.plansByState("pending", { limit: limitOf(c), cursor: c.req.query("cursor") });
    return c.html(page("Pending plans", ctxOf(c), plansView(p)));
  });

  app.get("/plans/:runId", async (c) => {
    const runId = c.req.param("runId");
    const [plan, run, admin] = await Promise.all([
      deps.plans.get(runId),
      deps.runs.get(runId),
      deps.admin.snapshot(),
    ]);
    if (!plan || !run) return c.notFound();
    const runForApprovers = { sender: run.sender ? { routingKey: run.sender } : null } as Parameters<
      typeof approversFor
    >[1];
    const approvers = [...approversFor(plan, runForApprovers, admin)].sort();
    const me = routingKey(c.get("principal").email);
    const body = planView(plan, {
      approvers,
      mayDecide: approvers.includes(me),
      csrf: c.get("csrf"),
      registry: deps.registry,
      now: deps.now(),
    });
    return c.html(page("Plan", ctxOf(c), body));
  });
}
