import { createHash } from "node:crypto";
import type { AgentItem } from "../../shared/admin/schema.ts";
import { createBudgetGate } from "../../shared/agent/budgets.ts";
import { createContextBuilder } from "../../shared/agent/context-builder.ts";
import { egressCheck } from "../../shared/agent/egress.ts";
import { createMailbox } from "../../shared/agent/mailbox.ts";
import type { RunRecord, StepDeps, StepMessage, Transcript } from "../../shared/agent/ports.ts";
import { quoteCheck } from "../../shared/agent/quote-check.ts";
import { runResolvers } from "../../shared/agent/resolvers.ts";
import { startDueRuns } from "../../shared/agent/start-scheduled.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import type { LoadedConfig } from "../../shared/config/load.ts";
import type { Resources } from "../../shared/config/resources.ts";
import { shownDisplayName } from "../../shared/gate/fence.ts";
import { createModel } from "../../shared/model/factory.ts";
import type { SecretSource } from "../../shared/model/secret-source.ts";
import type { ModelProvider } from "../../shared/model/types.ts";
import { createFactStore } from "../../shared/store/fact-store.ts";
import { DynamoRoundLedger } from "../../shared/store/round-ledger.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { ThreadActivity } from "../../shared/store/thread-activity.ts";
import type { Logger, OutboundRequest, ToolContext } from "../../shared/tools/context.ts";
import type { ToolRegistry } from "../../shared/tools/registry.ts";
import type { Resolver } from "../../shared/tools/resolver.ts";
import type { ToolResult } from "../../shared/tools/tool.ts";
import type { StepHandlerDeps } from "./handler.ts";
import { planWiring } from "./plan-wiring.ts";

const hash = (s: string) => createHash("sha256").update(s).digest("hex");

/** Wire the step loop to real adapters: the same function in Lambda and in the local stack. */
export function buildStepDeps(opts: {
  resources: Resources;
  loaded: LoadedConfig;
  registry: ToolRegistry;
  secrets: SecretSource;
  logger: Logger;
  clients?: AwsClients;
  /** Overrides the catalog (tests hand in a scripted or adversarial model). */
  models?: (id: string) => ModelProvider | null;
  leaseMs?: number;
  now?: () => Date;
  /** Operator resolvers (tools/index.ts): context added before the first model call. */
  resolvers?: readonly Resolver[];
}): StepHandlerDeps & { readonly stores: Stores } {
  const { resources, loaded, logger } = opts;
  const config = loaded.config;
  const egressFor = (agent: AgentItem) =>
    egressCheck({
      model: config.models.find((m) => m.id === agent.model),
      policy: config.egress,
      registry: opts.registry,
    });
  const clients = opts.clients ?? makeClients(resources);
  const stores = makeStores(clients, resources, logger);
  const now = opts.now ?? (() => new Date());
  const providers = new Map<string, ModelProvider>();
  const model =
    opts.models ??
    ((id: string) => {
      const entry = config.models.find((m) => m.id === id);
      if (!entry) return null;
      let p = providers.get(id);
      if (!p) {
        p = createModel(entry, { baseDir: loaded.baseDir, secrets: opts.secrets });
        providers.set(id, p);
      }
      return p;
    });
  const sendOutbound = async (req: OutboundRequest) =>
    void (await stores.queue.send(resources.queues.outbound, req));

  // A run whose trigger is gone (deleted responsibility, lost message) ends failed rather than hanging.
  const failMissing = async (runId: string, reason: string): Promise<null> => {
    logger.error("run trigger missing; run failed", { runId, reason });
    await stores.runs.finish(runId, "failed", reason);
    return null;
  };
  // Tool outcomes are also kept per thread, so a later run in the thread sees what the agent already did.
  const activity = new ThreadActivity({
    state: stores.state,
    dynamo: clients.dynamo,
    tables: resources.tables,
  });
  const recordActivity = async (runId: string, data: Record<string, unknown>) => {
    const run = await stores.runs.get(runId);
    if (!run?.threadId) return;
    await activity.record(run.agent, run.threadId, String(data.callId), {
      at: now().toISOString(),
      runId,
      tool: String(data.name),
      ok: data.ok === true,
      ...(typeof data.reason === "string" ? { reason: data.reason } : {}),
    });
  };
  const runs: StepDeps["runs"] = {
    async get(runId) {
      const run = await stores.runs.get(runId);
      if (!run) return null;
      const base = {
        runId: run.runId,
        agent: run.agent,
        kind: run.kind,
        state: run.state,
        correlationId: run.correlationId,
        createdAt: run.createdAt,
      };
      if (run.kind === "scheduled") {
        const admin = await stores.admin.snapshot();
        const responsibility = admin.responsibilities.find((r) => r.id === run.responsibilityId);
        if (!responsibility) return failMissing(run.runId, "responsibility-missing");
        return { ...base, trigger: { kind: "responsibility", responsibility }, sender: null };
      }
      const msg = run.messageId ? await stores.messages.get(run.agent, run.messageId) : null;
      if (!msg || !run.sender) return failMissing(run.runId, "message-missing");
      const record: RunRecord = {
        ...base,
        trigger: {
          kind: "message",
          message: {
            id: msg.id,
            threadId: msg.threadId,
            subject: msg.subject,
            headerMessageId: msg.headerMessageId,
          },
        },
        // The proven sender as verify stored it (G17): never anything the model said.
        sender: {
          address: msg.from,
          routingKey: run.sender,
          displayName: shownDisplayName((msg as { fromName?: string }).fromName ?? ""),
        },
      };
      return record;
    },
    async finish(runId, state, reason) {
      await stores.runs.finish(runId, state, reason);
    },
    noteRound: (runId, round) => stores.runs.noteRound(runId, round),
  };

  const enqueueStep = async (m: StepMessage) => void (await stores.queue.send(resources.queues.agentStep, m));
  const deps: StepDeps & { stores: Stores; startDue(tick: Date): ReturnType<typeof startDueRuns> } = {
    stores,
    startDue: (tick) =>
      startDueRuns(tick, {
        config,
        loadAdmin: () => stores.admin.snapshot(),
        enqueue: enqueueStep,
        logger,
        createRun: (r) =>
          stores.runs.create({
            ...r,
            kind: "scheduled",
            messageId: null,
            sender: null,
            threadId: null,
            transcriptKey: `transcripts/${r.runId}.json`,
          }),
      }),
    config,
    registry: opts.registry,
    loadAdmin: () => stores.admin.snapshot(),
    model,
    runs,
    ledger: new DynamoRoundLedger({ dynamo: clients.dynamo, tables: resources.tables }),
    transcripts: {
      load: async (runId) => (await stores.blobs.getJson(`transcripts/${runId}.json`)) as Transcript | null,
      save: (runId, t) => stores.blobs.putJson(`transcripts/${runId}.json`, t),
    },
    events: {
      async append(runId, event) {
        if (event.type === "tool-result") await recordActivity(runId, event.data);
        const r = await stores.runEvents.append(runId, { ...event, at: now().toISOString() });
        // A trace event must not vanish silently: say which one, and keep a small marker in its place.
        if (!r.ok) {
          logger.error("run event not recorded", { runId, type: event.type, reason: r.reason });
          if (r.reason === "too-large") {
            await stores.runEvents.append(runId, {
              type: event.type,
              round: event.round,
              at: now().toISOString(),
              data: { truncated: true },
            });
          }
        }
      },
    },
    budgets: createBudgetGate({
      counters: stores.state,
      config,
      now,
      notify: async (run, agent, reason) => {
        if (!run.sender) return;
        await sendOutbound({
          requestId: `budget-${hash(`${run.sender.routingKey}|${now().toISOString().slice(0, 10)}`).slice(0, 32)}`,
          agent: agent.address,
          mode: "new",
          to: [run.sender.address],
          cc: [],
          bcc: [],
          body: reason,
          attachmentIds: [],
          correlationId: run.correlationId,
          kind: "notice",
        });
      },
    }),
    context: createContextBuilder({
      getMessage: (agent, id) => stores.messages.get(agent, id),
      listThread: (agent, threadId) => stores.messages.listByThread(agent, threadId),
      getText: (key) => stores.blobs.getText(key),
      activity: (agent, threadId) => activity.list(agent, threadId),
      responsibility: () => null,
      async resolve(run, agent) {
        const resolvers = opts.resolvers ?? [];
        if (resolvers.length === 0) return [];
        const admin = await stores.admin.snapshot();
        const byName = new Map(resolvers.map((r) => [r.name, r]));
        const out = await runResolvers({
          resolvers,
          toolkits: admin.toolkits,
          ctx: { agent, sender: run.sender, trigger: run.trigger, logger },
          kind: run.kind,
          egress: egressCheck({
            model: config.models.find((m) => m.id === agent.model),
            policy: config.egress,
            registry: byName,
          }),
        });
        for (const r of out.runs)
          await stores.runEvents.append(run.runId, {
            type: "resolver",
            round: 1,
            at: now().toISOString(),
            data: { ...r },
          });
        return out.blocks;
      },
    }),
    cache: {
      async get(key) {
        const item = await stores.state.get(`toolres#${key}`, "result");
        return item ? (JSON.parse(String(item.result)) as ToolResult) : null;
      },
      async put(key, result) {
        await stores.state.putIfAbsent(
          `toolres#${key}`,
          "result",
          { result: JSON.stringify(result) },
          30 * 24 * 3600,
        );
      },
    },
    enqueue: enqueueStep,
    makeToolContext(run, agent, round, call, key): ToolContext {
      const threadId = run.trigger.kind === "message" ? run.trigger.message.threadId : null;
      const ctx: ToolContext = {
        agent,
        sender: run.sender,
        trigger: run.trigger,
        config,
        logger,
        correlationId: run.correlationId,
        runId: run.runId,
        round,
        callId: call.id,
        idempotencyKey: key,
        facts: createFactStore({
          state: stores.state,
          dynamo: clients.dynamo,
          tables: resources.tables,
          agent: agent.address,
          scope: threadId ?? run.runId,
          now,
        }),
        mailbox: createMailbox({
          agent: agent.address,
          threadId,
          runId: run.runId,
          messages: stores.messages,
          blobs: stores.blobs,
          files: stores.state,
        }),
        async deliver(request) {
          // The request id is the call's idempotency key: a replayed round cannot send twice.
          const requestId = `send-${hash(key).slice(0, 32)}`;
          await sendOutbound({
            ...request,
            requestId,
            agent: agent.address,
            correlationId: run.correlationId,
            runId: run.runId,
          });
          return { ok: true, requestId };
        },
      };
      return Object.freeze(ctx);
    },
    checks: (_run, transcript, agent) => [
      egressFor(agent),
      quoteCheck({ registry: opts.registry, untrustedText: transcript.untrustedText }),
    ],
    logger,
    leaseMs: opts.leaseMs ?? 15 * 60_000,
  };
  const plans = planWiring({ stores, clients, resources, step: deps, sendOutbound, egressFor, now });
  return { ...deps, propose: plans.propose, afterRun: plans.afterRun, applyConfirm: plans.applyConfirm };
}
