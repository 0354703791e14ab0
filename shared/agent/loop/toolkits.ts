import type { ToolkitItem } from "../../admin/index.ts";
import { evaluateLayer } from "../../gate/index.ts";
import { type Fail, fail, type Ok, ok } from "../../result.ts";
import type { Tool, ToolRegistry, VerifiedSender } from "../../tool-framework/index.ts";

/** Who is asking, as the gate sees it: never what the model says (G11, G17). */
export interface RunGateInput {
  readonly agent: string;
  readonly sender: VerifiedSender | null;
  readonly kind: "reply" | "scheduled";
  readonly toolkits: readonly ToolkitItem[];
  readonly registry: ToolRegistry;
}

export type ToolGateReason =
  | "tool-unknown"
  | "tool-not-granted"
  | "tool-sender-denied"
  | "tool-not-scheduled";

export type ToolGateResult =
  | Ok<{ readonly tool: Tool; readonly toolkits: readonly string[] }>
  | Fail<ToolGateReason>;

/**
 * May this run call `name`? Fail-closed: a tool reaches an agent only through a toolkit attached to it that holds
 * the tool, admits the run's sender through its own gate (same algebra as access rules) and, on scheduled runs,
 * has opted in. Called to build the offered catalog AND again at dispatch, so a tool the model was not offered
 * cannot be called by naming it.
 */
export function checkToolCall(input: RunGateInput, name: string): ToolGateResult {
  const tool = input.registry.get(name);
  if (!tool) return fail("tool-unknown");
  const holding = input.toolkits.filter((k) => k.tools.includes(name) && k.agents.includes(input.agent));
  if (holding.length === 0) return fail("tool-not-granted");
  const granted: string[] = [];
  let reason: ToolGateReason = "tool-not-granted";
  for (const kit of holding) {
    if (input.kind === "scheduled") {
      // A scheduled run has no proven sender, so no sender gate can vouch for it: only the explicit opt-in.
      if (!kit.allowScheduled) {
        reason = "tool-not-scheduled";
        continue;
      }
    } else if (!input.sender || evaluateLayer(kit.senderRules, input.sender.routingKey) !== "allow") {
      reason = "tool-sender-denied";
      continue;
    }
    granted.push(kit.id);
  }
  return granted.length > 0 ? ok({ tool, toolkits: granted }) : fail(reason);
}

/** The catalog offered to the model for this run: every registered tool the gate admits. */
export function toolsForRun(input: RunGateInput): readonly Tool[] {
  return input.registry
    .list()
    .filter((t) => checkToolCall(input, t.name).ok)
    .sort((a, b) => a.name.localeCompare(b.name));
}
