import type { AgentItem } from "../admin/schema.ts";
import type { DeploymentConfig } from "../config/schema.ts";
import type { ToolRegistry } from "../tool-framework/registry.ts";
import type { ApplyDeps } from "./apply-plan.ts";
import type { CallCheck } from "./dispatch.ts";
import { egressCheck } from "./egress.ts";
import type { StepDeps } from "./ports.ts";
import { quoteCheck } from "./quote-check.ts";

interface CheckSources {
  readonly config: DeploymentConfig;
  readonly registry: ToolRegistry;
}

/** The egress gate (G13) for the agent's model. */
function egressFor(src: CheckSources, agent: AgentItem): CallCheck {
  return egressCheck({
    model: src.config.models.find((m) => m.id === agent.model),
    policy: src.config.egress,
    registry: src.registry,
  });
}

/** Every call in a run passes the egress gate (G13), then the quote check over the run's untrusted text (G15). */
export function runCallChecks(src: CheckSources): NonNullable<StepDeps["checks"]> {
  return (_run, transcript, agent) => [
    egressFor(src, agent),
    quoteCheck({ registry: src.registry, untrustedText: transcript.untrustedText }),
  ];
}

/** Applying a confirmed plan re-runs the egress gate; its evidence was quote-checked when it was proposed. */
export function planCallChecks(src: CheckSources): ApplyDeps["checks"] {
  return (_run, agent) => [egressFor(src, agent)];
}
