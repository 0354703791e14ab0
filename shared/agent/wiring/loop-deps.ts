import { createFactStore } from "../../store/index.ts";
import { egressChannel } from "../channels/egress-channel.ts";
import { runCallChecks } from "../loop/call-checks.ts";
import { type ContextSources, createContextBuilder } from "../loop/context-builder.ts";
import { resolveContext } from "../loop/resolve-context.ts";
import { toolContextFactory } from "../loop/tool-context.ts";
import { createMailbox } from "../mailbox/mailbox.ts";
import type { EgressChannel, StepDeps } from "../ports.ts";
import { budgetNoticeRequest } from "../runs/budget-notice.ts";
import { createBudgetGate } from "../runs/budgets.ts";
import { loadRun } from "../runs/load-run.ts";
import { oncePerRun } from "../runs/once-per-run.ts";
import { createTraceSink } from "../runs/trace-sink.ts";
import { modelCatalog } from "./model-catalog.ts";
import { rememberedRunReads } from "./remembered-run-reads.ts";
import { runFailuresOverStore } from "./run-failures-over-store.ts";
import { toolResultCache } from "./tool-result-cache.ts";
import { transcriptStore } from "./transcript-store.ts";
import type { Wired } from "./wired.ts";

/**
 * How long a claimed round belongs to its worker: longer than the function may run (no live worker loses its
 * round), shorter than the queue's visibility timeout (the first redelivery after a crash takes the round over).
 * test/infra/stack.test.ts holds the deployed stack to both; the local stack releases a killed one's leases.
 */
export const ROUND_LEASE_MS = 15 * 60_000;

/** The step loop's ports (StepDeps) over the platform's repositories. */
export function loopDeps(w: Wired): StepDeps {
  const { opts, stores, now, loadAdmin } = w;
  const { config } = opts.loaded;
  const { logger } = opts;
  const failures = runFailuresOverStore(w);
  const runReads = rememberedRunReads(stores.runs);
  const trace = createTraceSink({
    log: stores.runEvents,
    runs: { get: runReads.recall },
    activity: stores.activity,
    now,
    logger,
  });
  const channel = egressChannel({ state: stores.state, trace, logger, now });
  const runEnd = { trace, runFailures: failures, webhooks: w.webhooks, logger };
  return {
    config,
    registry: opts.registry,
    channel,
    loadAdmin,
    model: opts.models ?? modelCatalog(opts.loaded, opts.secrets),
    loadRun: (runId) =>
      loadRun(runId, {
        ...runEnd,
        runs: { get: runReads.read, finish: (id, state, reason) => stores.runs.finish(id, state, reason) },
        message: w.message,
        loadAdmin,
      }),
    runs: stores.runs,
    ledger: stores.rounds,
    transcripts: transcriptStore(stores.blobs),
    budgets: budgetsOverStore(w),
    context: createContextBuilder(contextSources(w, channel)),
    cache: toolResultCache(stores.state),
    enqueue: w.enqueue,
    makeToolContext: toolContextOverStore(w, channel),
    checks: runCallChecks({ config, registry: opts.registry, channel }),
    offer: offerOncePerRun(w),
    leaseMs: opts.leaseMs ?? ROUND_LEASE_MS,
    ...runEnd,
  };
}

/** G10's budgets: counters in the state table, a spent budget's notice on the outbound queue. */
function budgetsOverStore(w: Wired): StepDeps["budgets"] {
  const { now } = w;
  return createBudgetGate({
    counters: w.stores.state,
    config: w.opts.loaded.config,
    now,
    notify: async (run, agent, reason) => {
      const notice = budgetNoticeRequest(run, agent, reason, now());
      if (notice) await w.sendOutbound(notice);
    },
  });
}

/** Round 1's context: the run's mail and thread, the thread's activity, the operator's resolvers. */
function contextSources(w: Wired, channel: EgressChannel): ContextSources {
  const { stores, opts, now, loadAdmin } = w;
  return {
    getMessage: w.message,
    listThread: (agent, threadId, o) => stores.messages.listByThread(agent, threadId, o),
    getText: (key) => stores.blobs.getText(key),
    activity: (agent, threadId) => stores.activity.list(agent, threadId),
    responsibility: () => null,
    resolve: resolveContext({
      resolvers: opts.contextResolvers ?? [],
      config: opts.loaded.config,
      channel,
      loadAdmin,
      log: stores.runEvents,
      now,
      logger: opts.logger,
    }),
  };
}

/** What a tool call may touch: the agent's facts, its mailbox, the outbound queue, the run's channels. */
function toolContextOverStore(w: Wired, channel: EgressChannel): StepDeps["makeToolContext"] {
  const { stores, opts, now, loadAdmin } = w;
  const { clients, resources } = opts;
  return toolContextFactory({
    config: opts.loaded.config,
    logger: opts.logger,
    facts: (agent, scope) =>
      createFactStore({
        state: stores.state,
        dynamo: clients.dynamo,
        tables: resources.tables,
        agent,
        scope,
        now,
      }),
    mailbox: (s) =>
      createMailbox({ ...s, messages: stores.messages, blobs: stores.blobs, files: stores.state }),
    sendOutbound: w.sendOutbound,
    channel,
    // All rules, filtered here: an invalid item keyed by a mixed-case agent still binds it (shared/admin/read.ts).
    outboundRules: async (agent) => (await loadAdmin()).outboundRules.filter((r) => r.agent === agent),
    replyParticipants: async (agent, id) => {
      const m = await w.message(agent, id);
      return m && m.direction === "in" ? { from: m.from, to: m.to, cc: m.cc } : null;
    },
  });
}

/** G20's offer check; one `mcp-unreviewed` per run and server's set of unreviewed tools, not one per round. */
function offerOncePerRun(w: Wired): NonNullable<StepDeps["offer"]> {
  return (tools, run, record) =>
    w.mcp.offer(
      tools,
      run,
      oncePerRun(
        w.stores.state,
        run.runId,
        (e) =>
          e.type === "mcp-unreviewed"
            ? `mcp-unreviewed#${String(e.data.server)}#${Array.isArray(e.data.tools) ? e.data.tools.join(",") : ""}`
            : null,
        record,
      ),
    );
}
