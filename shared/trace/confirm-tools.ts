import type { ToolRegistry } from "../tool-framework/index.ts";

/** Whether a tool is `confirm` (G14): its calls are proposals an approver must confirm, never run in the loop. */
export function confirmToolPredicate(registry: ToolRegistry): (name: string) => boolean {
  return (name) => {
    const fx = registry.get(name)?.sideEffects;
    return fx?.kind === "external" && fx.confirm === true;
  };
}
