import type { AgentItem } from "../../admin/index.ts";
import type { DeploymentConfig } from "../../config/index.ts";
import type { ToolRegistry } from "../../tool-framework/index.ts";
import { closedChannelCheck, restrictedReadCheck } from "../channels/channels.ts";
import { egressCheck } from "../channels/egress.ts";
import type { ApplyDeps } from "../plans/apply-plan.ts";
import type { ChannelState, LoadedRun, StepDeps } from "../ports.ts";
import type { CallCheck } from "./call-check.ts";
import { acceptedText, quoteCheck } from "./quote-check.ts";

interface CheckSources {
  readonly config: DeploymentConfig;
  readonly registry: ToolRegistry;
  /** G18: where the run's closed channels are recorded. */
  readonly channel: ChannelState;
}

/** G18: a closed run's network tools reach only allowed hosts; a restricted read closes the run's channels. */
function channelChecks(src: CheckSources, run: LoadedRun): CallCheck[] {
  const opts = { runId: run.runId, channel: src.channel, registry: src.registry };
  return [closedChannelCheck(opts), restrictedReadCheck({ ...opts, policy: src.config.egress })];
}

/** The egress gate (G13) for the agent's model. */
function egressFor(src: CheckSources, agent: AgentItem): CallCheck {
  return egressCheck({
    model: src.config.models.find((m) => m.id === agent.model),
    policy: src.config.egress,
    registry: src.registry,
  });
}

/**
 * Every call in a run passes the egress gate (G13), closed channels (G18), then the quote check over the run's
 * untrusted text (G15); after it ran, its result passes the egress gate and may close the run's channels.
 */
export function runCallChecks(src: CheckSources): NonNullable<StepDeps["checks"]> {
  return (run, transcript, agent) => [
    egressFor(src, agent),
    ...channelChecks(src, run),
    quoteCheck({ registry: src.registry, untrustedText: acceptedText(transcript) }),
  ];
}

/** Applying a confirmed plan re-runs the egress gate; its evidence was quote-checked when it was proposed. */
export function planCallChecks(src: CheckSources): ApplyDeps["checks"] {
  return (run, agent) => [egressFor(src, agent), ...channelChecks(src, run)];
}
