import type { Hono } from "hono";
import { approversFor } from "../../shared/agent/index.ts";
import { routingKey } from "../../shared/mail/index.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { decisionPk } from "../plan-decision.ts";
import { page } from "../views/layout.ts";
import { type PlanDecisionShown, plansView, planView } from "../views/plans.ts";
import { ctxOf, limitOf } from "./context.ts";

/**
 * The console decision recorded for a plan (plan-decision.ts), if any. The plan itself stays `pending` until
 * agent-step has applied or cancelled it (seconds later), so the page shows the decision meanwhile instead of
 * offering Apply again.
 */
async function decisionOf(deps: ConsoleDeps, runId: string): Promise<PlanDecisionShown | null> {
  const item = await deps.state.get(decisionPk(runId), "decision");
  if (!item) return null;
  return {
    decision: item.decision === "cancel" ? "cancel" : "approve",
    by: String(item.by ?? ""),
    at: String(item.at ?? ""),
  };
}

/** Pending plans, and one plan's confirm card with Apply/Cancel for its approvers. */
export function planPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/plans", async (c) => {
    const p = await deps.index.plansByState("pending", { limit: limitOf(c), cursor: c.req.query("cursor") });
    const decided = new Map(
      await Promise.all(p.items.map(async (x) => [x.runId, await decisionOf(deps, x.runId)] as const)),
    );
    return c.html(page("Pending plans", ctxOf(c), plansView(p, decided)));
  });

  app.get("/plans/:runId", async (c) => {
    const runId = c.req.param("runId");
    const [plan, run, admin, decision] = await Promise.all([
      deps.plans.get(runId),
      deps.runs.get(runId),
      deps.admin.snapshot(),
      decisionOf(deps, runId),
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
      decision,
    });
    return c.html(page("Plan", ctxOf(c), body));
  });
}
