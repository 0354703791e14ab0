import type { PlanBook } from "../../ports/index.ts";
import type { ToolRegistry } from "../../tool-framework/index.ts";
import { success, toolFailure } from "../../tool-framework/index.ts";
import type { StepDeps } from "../ports.ts";
import { canonicalJson } from "./plan.ts";

/**
 * G14: a call to a `confirm` tool does not run; it becomes an operation of the run's plan, summarised for the
 * card, and the model is told plainly that nothing has been done yet.
 */
export function proposeOperation(deps: {
  readonly plans: Pick<PlanBook, "add">;
  readonly registry: ToolRegistry;
}): NonNullable<StepDeps["propose"]> {
  return async (run, agent, call, input, toolkits) => {
    const tool = deps.registry.get(call.name);
    const summary = `${tool?.displayName ?? call.name}: ${canonicalJson(input).slice(0, 160)}`;
    const added = await deps.plans.add(run.runId, agent.address, {
      callId: call.id,
      tool: call.name,
      input,
      summary,
      toolkits,
    });
    if (added === "closed")
      return toolFailure("plan-closed", "this run's plan was already sent for approval");
    return success({
      status: "proposed",
      summary,
      note: "Not done yet: when this conversation ends, an approver is asked to confirm it by mail. Do not say it has been done.",
    });
  };
}
