import { stepPayloadSchema } from "../payloads/index.ts";
import type { Platform, Stores } from "../store/index.ts";
import { webhookSinkFor } from "../webhooks/index.ts";
import type { StepHandlerDeps } from "./handle-message.ts";
import { startDueRuns } from "./runs/start-scheduled.ts";
import { adoptMcpTools } from "./wiring/adopt-mcp-tools.ts";
import { deliveryReads } from "./wiring/delivery-reads.ts";
import { loopDeps } from "./wiring/loop-deps.ts";
import { mcpRuntimeOverStore } from "./wiring/mcp-runtime-over-store.ts";
import { planDeps } from "./wiring/plan-deps.ts";
import type { StepParts, StepWiringOptions, Wired } from "./wiring/wired.ts";

/**
 * The agent-step function's composition root: the platform's repositories adapted to the agent's ports, and the
 * agent's rules assembled into StepHandlerDeps. The same function in Lambda and in the local stack. The rules take
 * ports; the wiring modules (this one and ./wiring/, shared/outbound/wiring.ts, shared/intake/wiring.ts) are where
 * store classes are named.
 */
export function agentStepDeps(
  platform: Platform,
  parts: StepParts,
): StepHandlerDeps & { readonly stores: Stores } {
  const opts: StepWiringOptions = {
    ...parts,
    resources: platform.resources,
    loaded: { config: platform.config, baseDir: parts.baseDir },
    logger: platform.logger,
    clients: platform.clients,
    stores: platform.stores,
    now: platform.now,
  };
  const { stores, resources } = platform;
  const reads = deliveryReads(stores);
  const mcp = mcpRuntimeOverStore(opts);
  const adopt = adoptMcpTools(opts.registry, mcp, opts.logger);
  const w: Wired = {
    opts,
    stores,
    now: platform.now,
    mcp,
    // Each delivery's snapshot, then its reviewed MCP tools into the registry: the step that follows every read.
    loadAdmin: async () => adopt(await reads.admin()),
    message: reads.message,
    beginReceive: reads.beginReceive,
    webhooks: webhookSinkFor(opts),
    sendOutbound: async (req) => void (await stores.queue.send(resources.queues.outbound, req)),
    // Parsed with the consumer's own schema: a message agent-step would refuse is never sent.
    enqueue: async (m) =>
      void (await stores.queue.send(resources.queues.agentStep, stepPayloadSchema.parse(m))),
  };
  const step = loopDeps(w);
  return {
    ...step,
    ...planDeps(w, step),
    beginReceive: w.beginReceive,
    stores,
    startDue: (tick) =>
      startDueRuns(tick, {
        config: opts.loaded.config,
        loadAdmin: w.loadAdmin,
        enqueue: w.enqueue,
        logger: opts.logger,
        createRun: (r) =>
          stores.runs.create({ ...r, kind: "scheduled", messageId: null, sender: null, threadId: null }),
      }),
  };
}
