import type { AdminSnapshot } from "../admin/index.ts";
import type { AwsClients } from "../aws/index.ts";
import type { LoadedConfig, Resources } from "../config/index.ts";
import { PREFIXES, STATE_KEYS } from "../config/index.ts";
import { type EventSink, eventSinkFor } from "../events/index.ts";
import type { Logger } from "../logger.ts";
import {
  type ConnectorOptions,
  type McpRuntime,
  type McpRuntimeOptions,
  mcpRuntime,
  mcpSecretLookup,
  PIN_PREDATES_COVERAGE,
} from "../mcp/index.ts";
import type { OutboundRequest } from "../messages/index.ts";
import { perDelivery, type StepMessage, stepMessageSchema } from "../messages/index.ts";
import type { ModelProvider, SecretSource } from "../model/index.ts";
import { createModel } from "../model/index.ts";
import { type HostResolver, systemResolver } from "../net/index.ts";
import type { BlobStore, Platform, RunRepo, StateRepo } from "../store/index.ts";
import {
  createFactStore,
  DynamoRoundLedger,
  failureReporter,
  PlanStore,
  type Stores,
  ThreadActivity,
} from "../store/index.ts";
import type { ContextResolver, ToolRegistry, ToolResult } from "../tool-framework/index.ts";
import { egressChannel } from "./channels/egress-channel.ts";
import type { StepHandlerDeps } from "./handle-message.ts";
import { planCallChecks, runCallChecks } from "./loop/call-checks.ts";
import { createContextBuilder } from "./loop/context-builder.ts";
import type { ToolResultCache } from "./loop/dispatch.ts";
import { resolveContext } from "./loop/resolve-context.ts";
import { toolContextFactory } from "./loop/tool-context.ts";
import { createMailbox } from "./mailbox/mailbox.ts";
import { applyConfirmation } from "./plans/apply-plan.ts";
import { confirmNoticeRequest } from "./plans/confirm-notice.ts";
import { sendPlanCard } from "./plans/plan-card.ts";
import { proposeOperation } from "./plans/propose-operation.ts";
import { loadRequester } from "./plans/requester.ts";
import type { RunFailures, RunTable, StepDeps, Transcript, TranscriptStore } from "./ports.ts";
import { budgetNoticeRequest } from "./runs/budget-notice.ts";
import { createBudgetGate } from "./runs/budgets.ts";
import { continueRun } from "./runs/continue-run.ts";
import { loadRun } from "./runs/load-run.ts";
import { createRunEventSink } from "./runs/run-event-sink.ts";
import { runFailures } from "./runs/run-failure.ts";
import { startDueRuns } from "./runs/start-scheduled.ts";

/**
 * How long a claimed round belongs to its worker: longer than the function may run (no live worker loses its
 * round), shorter than the queue's visibility timeout (the first redelivery after a crash takes the round over).
 * test/infra/stack.test.ts holds the deployed stack to both; the local stack releases a killed one's leases.
 */
export const ROUND_LEASE_MS = 15 * 60_000;

/** What only agent-step's composition root needs beside the platform. */
export interface StepParts {
  readonly registry: ToolRegistry;
  readonly secrets: SecretSource;
  /** Where the config's relative paths (model scripts) resolve. */
  readonly baseDir: string;
  /** Overrides the catalog (tests hand in a scripted or adversarial model). */
  readonly models?: (id: string) => ModelProvider | null;
  readonly leaseMs?: number;
  /** The operator's context resolvers (tools/index.ts): context added before the first model call. */
  readonly contextResolvers?: readonly ContextResolver[];
  /**
   * MCP tool servers (docs/mcp.md). `local` is set by the local stack and tests only, never in AWS: stdio servers
   * and loopback addresses become reachable. `resolve` replaces the system DNS resolver (tests).
   */
  readonly mcp?: Pick<ConnectorOptions, "local"> &
    Pick<McpRuntimeOptions, "connect"> & { readonly resolve?: HostResolver };
}

/** The platform and the parts, as the wiring below reads them. */
interface StepWiringOptions extends StepParts {
  readonly resources: Resources;
  readonly loaded: LoadedConfig;
  readonly logger: Logger;
  readonly clients: AwsClients;
  readonly stores: Stores;
  readonly now: () => Date;
}

/** What every part of the wiring shares. */
interface Wired {
  readonly opts: StepWiringOptions;
  readonly clients: AwsClients;
  readonly stores: Stores;
  readonly runs: RunTable;
  readonly now: () => Date;
  loadAdmin: StepDeps["loadAdmin"];
  /** MCP servers' reviewed tools (adopted into the registry with each admin snapshot) and the offer check. */
  readonly mcp: McpRuntime;
  /** A message record, read once per delivery (records are written once and never change). */
  message: Stores["messages"]["get"];
  /** Forget what was kept for the last delivery (StepDeps.beginDelivery). */
  beginDelivery(): void;
  sendOutbound(request: OutboundRequest): Promise<void>;
  enqueue(message: StepMessage): Promise<void>;
  /** Signed events out (docs/events.md): the events queue, when the stack has one. */
  readonly webhooks: EventSink;
}

const transcriptKey = (runId: string) => `${PREFIXES.transcripts}${runId}.json`;

/** The run repository as the agent's run table; a run's transcript key is derived from its id. */
function runTable(runs: RunRepo): RunTable {
  return {
    get: (runId) => runs.get(runId),
    create: (run) => runs.create({ ...run, transcriptKey: transcriptKey(run.runId) }),
    async finish(runId, state, reason) {
      await runs.finish(runId, state, reason);
    },
    noteRound: (runId, round) => runs.noteRound(runId, round),
    noteTranscript: (runId) => runs.noteTranscript(runId),
  };
}

function transcriptStore(blobs: BlobStore): TranscriptStore {
  return {
    load: async (runId) => (await blobs.getJson(transcriptKey(runId))) as Transcript | null,
    save: (runId, t) => blobs.putJson(transcriptKey(runId), t),
  };
}

/** Tool results by idempotency key, kept 30 days in the state table. */
function toolResultCache(state: StateRepo): ToolResultCache {
  return {
    async get(key) {
      const item = await state.get(STATE_KEYS.toolResult(key), "result");
      return item ? (JSON.parse(String(item.result)) as ToolResult) : null;
    },
    async put(key, result) {
      await state.putIfAbsent(
        STATE_KEYS.toolResult(key),
        "result",
        { result: JSON.stringify(result) },
        30 * 24 * 3600,
      );
    },
  };
}

/** The deployment's models, each built once per container on first use. */
function modelCatalog(loaded: LoadedConfig, secrets: SecretSource): (id: string) => ModelProvider | null {
  const providers = new Map<string, ModelProvider>();
  return (id) => {
    const entry = loaded.config.models.find((m) => m.id === id);
    if (!entry) return null;
    let p = providers.get(id);
    if (!p) {
      p = createModel(entry, { baseDir: loaded.baseDir, secrets });
      providers.set(id, p);
    }
    return p;
  };
}

function wire(opts: StepWiringOptions): Wired {
  const { resources } = opts;
  const { clients, stores } = opts;
  // Several rules of one delivery read the admin snapshot (a version read each time) and the run's message: each
  // is read once per delivery and kept for it; beginDelivery drops them, so the next delivery reads fresh.
  const admin = perDelivery(() => stores.admin.snapshot());
  const messages = new Map<string, ReturnType<Stores["messages"]["get"]>>();
  const { now } = opts;
  const mcp = mcpWiring(opts, stores, now);
  // The registry holds the reviewed MCP tools of the snapshot in use: rebuilt when the snapshot changes, so a
  // review (or a removal) takes effect at the next delivery, as every admin edit does.
  let adopted: AdminSnapshot | null = null;
  const loadAdmin = async (): Promise<AdminSnapshot> => {
    const snapshot = await admin.get();
    if (snapshot !== adopted) {
      adopted = snapshot;
      const refused = opts.registry.adopt(mcp.tools(snapshot.mcpServers ?? []));
      if (refused.length > 0)
        opts.logger.error("mcp tools not adopted: their names are taken", { tools: refused });
    }
    return snapshot;
  };
  return {
    opts,
    clients,
    stores,
    runs: runTable(stores.runs),
    webhooks: eventSinkFor(opts),
    now,
    mcp,
    loadAdmin,
    message(agent, id) {
      const key = `${agent}\u0000${id}`;
      let m = messages.get(key);
      if (!m) {
        m = stores.messages.get(agent, id);
        messages.set(key, m);
        m.catch(() => messages.delete(key));
      }
      return m;
    },
    beginDelivery() {
      admin.reset();
      messages.clear();
    },
    sendOutbound: async (req) => void (await stores.queue.send(resources.queues.outbound, req)),
    // Parsed with the consumer's own schema: a message agent-step would refuse is never sent.
    enqueue: async (m) =>
      void (await stores.queue.send(resources.queues.agentStep, stepMessageSchema.parse(m))),
  };
}

/** MCP servers over the store: the per-run call budget in the state table, a changed definition as a failure. */
function mcpWiring(opts: StepWiringOptions, stores: Stores, now: () => Date): McpRuntime {
  const failures = failureReporter(stores, opts.logger, now);
  return mcpRuntime({
    resolve: opts.mcp?.resolve ?? systemResolver,
    // An env-var name locally; a Secrets Manager reference in AWS (shared/admin/mcp-server-item.ts).
    secret: mcpSecretLookup(opts.secrets),
    counters: stores.state,
    ...(opts.mcp?.local ? { local: opts.mcp.local } : {}),
    ...(opts.mcp?.connect ? { connect: opts.mcp.connect } : {}),
    report: (c) =>
      failures.report({
        class: "mcp-definition-changed",
        reason: "mcp-definition-changed",
        detail:
          c.live === PIN_PREDATES_COVERAGE
            ? `${c.server}/${c.tool} (${c.exposedAs}): its pin predates the coverage of titles and output schemas and the tool has one; review it again (postern mcp review ${c.server})`
            : `${c.server}/${c.tool} (${c.exposedAs}): live definition ${c.live === "missing" ? "missing" : `hash ${c.live.slice(0, 12)}`} differs from the reviewed pin`,
        agent: c.agent,
        runId: c.runId,
      }),
    reportUnavailable: (u) =>
      failures.report({
        class: "mcp-unavailable",
        reason: u.reason,
        detail: `${u.server}: ${u.detail}; none of its tools were offered`,
        agent: u.agent,
        runId: u.runId,
      }),
  });
}

/** The once-a-day mark of the run-failure notice: kept two days, past the day it is for. */
const NOTICE_MARK_TTL_SECONDS = 2 * 24 * 3600;

/** G19 for runs over the store: the failure reporter, the once-a-day notice mark, the run's own mail. */
function failureDeps(w: Wired): RunFailures {
  const { stores, now, opts } = w;
  return runFailures({
    failures: failureReporter(stores, opts.logger, now),
    firstNoticeToday: async (agent, sender, day) =>
      (
        await stores.state.putIfAbsent(
          STATE_KEYS.runFailureNotice(agent, sender),
          day,
          {},
          NOTICE_MARK_TTL_SECONDS,
        )
      ).ok,
    isAutomatic: async (agent, id) => (await w.message(agent, id))?.automatic === true,
    sendOutbound: w.sendOutbound,
    now,
  });
}

/** The step loop's ports (StepDeps) over the store. */
function loopDeps(w: Wired, activity: ThreadActivity): StepDeps {
  const { opts, stores, clients, now, runs, loadAdmin } = w;
  const { config } = opts.loaded;
  const { logger, resources } = opts;
  const failures = failureDeps(w);
  // The step reads its run each delivery; the trace's thread log needs only the run's agent and thread, which never
  // change: it takes them from the step's read instead of reading the run again.
  const lastRead = new Map<string, Awaited<ReturnType<RunTable["get"]>>>();
  const stepRuns: RunTable = {
    ...runs,
    async get(runId) {
      const run = await runs.get(runId);
      if (lastRead.size >= 256) lastRead.clear();
      lastRead.set(runId, run);
      return run;
    },
  };
  const events = createRunEventSink({
    log: stores.runEvents,
    runs: { get: async (runId) => lastRead.get(runId) ?? runs.get(runId) },
    activity,
    now,
    logger,
  });
  const channel = egressChannel({ state: stores.state, events, logger, now });
  return {
    config,
    registry: opts.registry,
    channel,
    loadAdmin,
    model: opts.models ?? modelCatalog(opts.loaded, opts.secrets),
    runs: {
      get: (runId) =>
        loadRun(runId, {
          runs: stepRuns,
          message: w.message,
          loadAdmin,
          logger,
          events,
          runFailures: failures,
          webhooks: w.webhooks,
        }),
      finish: (runId, state, reason) => runs.finish(runId, state, reason),
      noteRound: (runId, round) => runs.noteRound(runId, round),
      noteTranscript: (runId) => runs.noteTranscript(runId),
    },
    ledger: new DynamoRoundLedger({ dynamo: clients.dynamo, tables: resources.tables }),
    transcripts: transcriptStore(stores.blobs),
    events,
    budgets: createBudgetGate({
      counters: stores.state,
      config,
      now,
      notify: async (run, agent, reason) => {
        const notice = budgetNoticeRequest(run, agent, reason, now());
        if (notice) await w.sendOutbound(notice);
      },
    }),
    context: createContextBuilder({
      getMessage: w.message,
      listThread: (agent, threadId, o) => stores.messages.listByThread(agent, threadId, o),
      getText: (key) => stores.blobs.getText(key),
      activity: (agent, threadId) => activity.list(agent, threadId),
      responsibility: () => null,
      resolve: resolveContext({
        resolvers: opts.contextResolvers ?? [],
        config,
        channel,
        loadAdmin,
        log: stores.runEvents,
        now,
        logger,
      }),
    }),
    cache: toolResultCache(stores.state),
    enqueue: w.enqueue,
    makeToolContext: toolContextFactory({
      config,
      logger,
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
    }),
    checks: runCallChecks({ config, registry: opts.registry, channel }),
    offer: (tools, run, record) => w.mcp.offer(tools, run, record),
    logger,
    runFailures: failures,
    leaseMs: opts.leaseMs ?? ROUND_LEASE_MS,
    webhooks: w.webhooks,
  };
}

/** G14: proposing, the card when a run ends, and an approver's reply, over the plan store. */
function planDeps(w: Wired, step: StepDeps): Pick<StepHandlerDeps, "propose" | "afterRun" | "applyConfirm"> {
  const { opts, stores, clients, now } = w;
  const plans = new PlanStore({ dynamo: clients.dynamo, tables: opts.resources.tables, state: stores.state });
  const channel = egressChannel({ state: stores.state, events: step.events, logger: opts.logger, now });
  const checkSources = { config: opts.loaded.config, registry: opts.registry, channel };
  return {
    propose: proposeOperation({ plans, registry: opts.registry }),
    afterRun: sendPlanCard({
      plans,
      loadAdmin: w.loadAdmin,
      events: step.events,
      sendOutbound: w.sendOutbound,
      now,
      webhooks: w.webhooks,
      requester: loadRequester({ message: w.message, getText: (key) => stores.blobs.getText(key) }),
    }),
    applyConfirm: (msg) =>
      applyConfirmation(msg, {
        plans,
        loadAdmin: w.loadAdmin,
        registry: opts.registry,
        getRun: (id) => step.runs.get(id),
        checks: planCallChecks(checkSources),
        budgets: step.budgets,
        cache: step.cache,
        makeToolContext: (run, agent, call, key, grantedBy) =>
          step.makeToolContext(run, agent, 0, call, key, grantedBy),
        events: step.events,
        webhooks: w.webhooks,
        failures: failureReporter(stores, opts.logger, now),
        now,
        notify: (msg, reason) => w.sendOutbound(confirmNoticeRequest(msg, reason)),
        sendOutbound: w.sendOutbound,
        continueRun: continueRun({ transcripts: step.transcripts, runs: w.runs, enqueue: step.enqueue }),
      }),
  };
}

/**
 * The agent-step function's composition root: the store's repositories adapted to the agent's ports, and the
 * agent's rules assembled into StepHandlerDeps. The same function in Lambda and in the local stack. The rules take
 * ports; the wiring modules (this one, shared/outbound/wiring.ts, shared/intake/wiring.ts) are where store classes
 * are named.
 */
export function buildStepDeps(
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
  const w = wire(opts);
  const { stores, clients, runs } = w;
  // Tool outcomes are also kept per thread, so a later run in the thread sees what the agent already did.
  const activity = new ThreadActivity({
    state: stores.state,
    dynamo: clients.dynamo,
    tables: opts.resources.tables,
  });
  const step = loopDeps(w, activity);
  return {
    ...step,
    ...planDeps(w, step),
    beginDelivery: w.beginDelivery,
    stores,
    startDue: (tick) =>
      startDueRuns(tick, {
        config: opts.loaded.config,
        loadAdmin: w.loadAdmin,
        enqueue: w.enqueue,
        logger: opts.logger,
        createRun: (r) =>
          runs.create({ ...r, kind: "scheduled", messageId: null, sender: null, threadId: null }),
      }),
  };
}
