import type { AdminSnapshot, AgentItem } from "../../admin/index.ts";
import type { DeploymentConfig } from "../../config/index.ts";
import type { Logger } from "../../logger.ts";
import type { ContextResolver } from "../../tool-framework/index.ts";
import { restrictedReadCheck } from "../channels/channels.ts";
import { egressCheck } from "../channels/egress.ts";
import type { ChannelState, LoadedRun, RunEventLog } from "../ports.ts";
import { runResolvers } from "./context-resolvers.ts";

/**
 * Round 1's resolver context (ContextSources.resolve): the operator's resolvers this run may use, each result
 * through the egress gate (G13) like a tool result; each resolver run is kept in the trace.
 */
export function resolveContext(deps: {
  readonly resolvers: readonly ContextResolver[];
  readonly config: DeploymentConfig;
  /** G18: a resolver result of a restricted class closes the run's channels, as a tool result does. */
  readonly channel: ChannelState;
  loadAdmin(): Promise<AdminSnapshot>;
  readonly log: RunEventLog;
  now(): Date;
  readonly logger: Logger;
}): (run: LoadedRun, agent: AgentItem) => Promise<readonly string[]> {
  const { resolvers, config } = deps;
  const byName = new Map(resolvers.map((r) => [r.name, r]));
  return async (run, agent) => {
    if (resolvers.length === 0) return [];
    const admin = await deps.loadAdmin();
    const gate = egressCheck({
      model: config.models.find((m) => m.id === agent.model),
      policy: config.egress,
      registry: byName,
    });
    const closing = restrictedReadCheck({
      runId: run.runId,
      channel: deps.channel,
      registry: byName,
      policy: config.egress,
    });
    const out = await runResolvers({
      resolvers,
      toolkits: admin.toolkits,
      ctx: { agent, sender: run.sender, trigger: run.trigger, logger: deps.logger },
      kind: run.kind,
      // The egress gate decides whether the result may be shown; a shown result of a restricted class then
      // closes the run's channels before the model sees it (the check never refuses).
      egress: async (phase, call) => {
        const verdict = await gate(phase, call);
        if (verdict.ok) await closing(phase, call);
        return verdict;
      },
    });
    for (const r of out.runs)
      await deps.log.append(run.runId, {
        type: "resolver",
        round: 1,
        at: deps.now().toISOString(),
        data: { ...r },
      });
    return out.blocks;
  };
}
