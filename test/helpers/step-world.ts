import { configRoundLimit } from "../../shared/admin/round-limit.ts";
import type {
  AdminSnapshot,
  AgentItem,
  ApproverItem,
  OutboundRuleItem,
  ToolkitItem,
} from "../../shared/admin/schema.ts";
import { egressChannel } from "../../shared/agent/channels/egress-channel.ts";
import type { StepHandlerDeps } from "../../shared/agent/handle-message.ts";
import { planCallChecks, runCallChecks } from "../../shared/agent/loop/call-checks.ts";
import { createContextBuilder } from "../../shared/agent/loop/context-builder.ts";
import type { ToolResultCache } from "../../shared/agent/loop/dispatch.ts";
import type { StepOutcome } from "../../shared/agent/loop/round.ts";
import { runStep } from "../../shared/agent/loop/step.ts";
import { toolContextFactory } from "../../shared/agent/loop/tool-context.ts";
import { createMailbox } from "../../shared/agent/mailbox/mailbox.ts";
import { applyConfirmation } from "../../shared/agent/plans/apply-plan.ts";
import { confirmNoticeRequest } from "../../shared/agent/plans/confirm-notice.ts";
import { sendPlanCard } from "../../shared/agent/plans/plan-card.ts";
import { proposeOperation } from "../../shared/agent/plans/propose-operation.ts";
import { loadRequester } from "../../shared/agent/plans/requester.ts";
import type { StepDeps } from "../../shared/agent/ports.ts";
import { budgetNoticeRequest } from "../../shared/agent/runs/budget-notice.ts";
import { createBudgetGate } from "../../shared/agent/runs/budgets.ts";
import { continueRun } from "../../shared/agent/runs/continue-run.ts";
import { loadRun } from "../../shared/agent/runs/load-run.ts";
import { runFailures } from "../../shared/agent/runs/run-failure.ts";
import { createTraceSink } from "../../shared/agent/runs/trace-sink.ts";
import type { DeploymentConfig } from "../../shared/config/schema.ts";
import { acceptedIds } from "../../shared/intake/store-accepted.ts";
import { routingKey } from "../../shared/mail/routing-key.ts";
import { type StepPayload, stepPayloadSchema } from "../../shared/payloads/agent-step.ts";
import type { OutboundRequest } from "../../shared/payloads/outbound.ts";
import type { WebhookSink } from "../../shared/ports/index.ts";
import { noWebhooks } from "../../shared/ports/index.ts";
import { ToolRegistry } from "../../shared/tool-framework/registry.ts";
import type { Tool, ToolResult } from "../../shared/tool-framework/tool.ts";
import { memoryBlobs } from "../fakes/blobs.ts";
import {
  AGENT,
  admin,
  agent as agentItem,
  config as configOf,
  message,
  NOW,
  SENDER,
} from "../fakes/builders.ts";
import { recordingFailures } from "../fakes/failures.ts";
import { memoryMessages } from "../fakes/messages.ts";
import { recordingModel } from "../fakes/model.ts";
import { memoryPlanStore } from "../fakes/plan-store.ts";
import { recordingQueue } from "../fakes/queue.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import { memoryRoundLedger } from "../fakes/round-ledger.ts";
import { memoryRunEventLog } from "../fakes/run-event-log.ts";
import { memoryRunTable } from "../fakes/run-table.ts";
import { memoryState } from "../fakes/state.ts";
import { memoryThreadActivity } from "../fakes/thread-activity.ts";
import { transcriptStore } from "../fakes/transcripts.ts";

export const QUEUES = { agentStep: "queue/agent-step", outbound: "queue/outbound" } as const;

export interface StepWorldOptions {
  readonly tools?: readonly Tool[];
  readonly toolkits?: readonly ToolkitItem[];
  readonly approvers?: readonly ApproverItem[];
  /** The model script's turns (shared/model/script.ts). */
  readonly turns?: readonly unknown[];
  /** Deployment config fields over the builders' default (budgets, maxToolTurns, ...). */
  readonly config?: Record<string, unknown>;
  readonly agent?: Partial<AgentItem>;
  readonly leaseMs?: number;
  /** The agent's outbound rules (admin table `outboundRules`). */
  readonly outboundRules?: readonly OutboundRuleItem[];
  /** Signed events out, where the wiring passes them (the loop, run loading, plan outcomes). */
  readonly webhooks?: WebhookSink;
  /** An approved operation's deadline (apply-one.ts), short for the test of a tool that never answers. */
  readonly opTimeoutMs?: number;
}

/** Every store the agent-step function uses, as its fake, over one clock. */
function fakeStores(clock: { now: Date }, turns: readonly unknown[]) {
  const now = () => clock.now;
  const state = memoryState({ now });
  const runs = memoryRunTable([], { now });
  const blobs = memoryBlobs();
  return {
    state,
    runs,
    blobs,
    ledger: memoryRoundLedger({ now: () => clock.now.getTime() }),
    transcripts: transcriptStore(blobs),
    messages: memoryMessages(),
    log: memoryRunEventLog(),
    activity: memoryThreadActivity(state),
    plans: memoryPlanStore(state),
    queue: recordingQueue(),
    model: recordingModel(turns),
    logger: recordingLogger(),
    failures: recordingFailures(),
  };
}
type Fakes = ReturnType<typeof fakeStores>;

/** What the wiring's rules share: config, registry, admin, the clock, and the two queues. */
interface Common {
  readonly config: DeploymentConfig;
  readonly registry: ToolRegistry;
  loadAdmin(): Promise<AdminSnapshot>;
  now(): Date;
  sendOutbound(request: OutboundRequest): Promise<void>;
  enqueue: StepDeps["enqueue"];
  readonly webhooks?: WebhookSink;
  readonly opTimeoutMs?: number;
}

/** Tool results by idempotency key in the `state` table, as the wiring keeps them. */
function toolResultCache(state: Fakes["state"]): ToolResultCache {
  return {
    async get(key) {
      const item = await state.get(`toolres#${key}`, "result");
      return item ? (JSON.parse(String(item.result)) as ToolResult) : null;
    },
    async put(key, result) {
      await state.putIfAbsent(`toolres#${key}`, "result", { result: JSON.stringify(result) }, 30 * 24 * 3600);
    },
  };
}

/** The step loop's ports (StepDeps), as loopDeps in shared/agent/wiring/loop-deps.ts builds them. */
function loopDeps(f: Fakes, c: Common, leaseMs: number): StepDeps {
  const { runs, messages, blobs, state, plans, logger } = f;
  const { config, registry, loadAdmin, now, sendOutbound } = c;
  const events = createTraceSink({ log: f.log, runs, activity: f.activity, now, logger });
  const channel = egressChannel({ state, trace: events, logger, now });
  // As runFailuresOverStore in shared/agent/wiring/: the once-a-day mark in `state`, the notice on the outbound queue.
  const failed = runFailures({
    failures: f.failures,
    firstNoticeToday: async (a, sender, day) =>
      (await state.putIfAbsent(`runfailnotice#${a}#${sender}`, day, {}, 2 * 24 * 3600)).ok,
    isAutomatic: async (a, id) => (await messages.get(a, id))?.automatic === true,
    sendOutbound,
    now,
  });
  return {
    config,
    registry,
    channel,
    loadAdmin,
    model: (id) => (id === "demo" ? f.model : null),
    loadRun: (runId) =>
      loadRun(runId, {
        runs,
        message: (a, id) => messages.get(a, id),
        loadAdmin,
        logger,
        trace: events,
        runFailures: failed,
        webhooks: c.webhooks ?? noWebhooks,
      }),
    runs,
    ledger: f.ledger,
    transcripts: f.transcripts,
    trace: events,
    budgets: createBudgetGate({
      counters: state,
      config,
      now,
      notify: async (run, a, reason) => {
        const notice = budgetNoticeRequest(run, a, reason, now());
        if (notice) await sendOutbound(notice);
      },
    }),
    context: createContextBuilder({
      getMessage: (a, id) => messages.get(a, id),
      listThread: (a, threadId, o) => messages.listByThread(a, threadId, o),
      getText: (key) => blobs.getText(key),
      activity: (a, threadId) => f.activity.list(a, threadId),
      responsibility: () => null,
    }),
    cache: toolResultCache(state),
    enqueue: c.enqueue,
    makeToolContext: toolContextFactory({
      config,
      logger,
      facts: () => ({
        record: () => Promise.reject(new Error("facts are not part of these tests")),
        list: () => Promise.reject(new Error("facts are not part of these tests")),
      }),
      mailbox: (scope) => createMailbox({ ...scope, messages, blobs, files: state, now }),
      sendOutbound,
      channel,
      outboundRules: async (a) => (await loadAdmin()).outboundRules.filter((r) => r.agent === a),
      replyParticipants: async (a, id) => {
        const m = await messages.get(a, id);
        return m && m.direction === "in" ? { from: m.from, to: m.to, cc: m.cc } : null;
      },
    }),
    checks: runCallChecks({ config, registry, channel }),
    propose: proposeOperation({ plans, registry }),
    afterRun: sendPlanCard({
      plans,
      loadAdmin,
      trace: events,
      webhooks: c.webhooks ?? noWebhooks,
      sendOutbound,
      now,
      requester: loadRequester({ message: (a, id) => messages.get(a, id), getText: (k) => blobs.getText(k) }),
    }),
    logger,
    runFailures: failed,
    leaseMs,
    webhooks: c.webhooks ?? noWebhooks,
  };
}

/** An approver's reply (applyConfirm), as planDeps in shared/agent/wiring/plan-deps.ts builds it. */
function handlerDeps(f: Fakes, c: Common, step: StepDeps): StepHandlerDeps {
  const { config, registry, loadAdmin, now } = c;
  return {
    ...step,
    startDue: async () => ({ started: [], invalid: [] }),
    applyConfirm: (msg) =>
      applyConfirmation(msg, {
        plans: f.plans,
        loadAdmin,
        registry,
        getRun: (id) => step.loadRun(id),
        checks: planCallChecks({
          config,
          registry,
          channel: egressChannel({ state: f.state, trace: step.trace, logger: f.logger, now }),
        }),
        budgets: step.budgets,
        cache: step.cache,
        makeToolContext: (run, a, call, key, grantedBy) =>
          step.makeToolContext(run, a, 0, call, key, grantedBy),
        trace: step.trace,
        webhooks: c.webhooks ?? noWebhooks,
        failures: f.failures,
        now,
        notify: (m, reason) => c.sendOutbound(confirmNoticeRequest(m, reason)),
        sendOutbound: c.sendOutbound,
        ...(c.opTimeoutMs === undefined ? {} : { opTimeoutMs: c.opTimeoutMs }),
        continueRun: continueRun({ transcripts: f.transcripts, runs: f.runs, enqueue: c.enqueue }),
      }),
  };
}

/**
 * The agent-step function over in-memory fakes: the rules shared/agent/wiring.ts assembles (run loading, trace
 * sink, budgets, context, tool context and mailbox, plans), each store replaced by its fake from test/fakes/, and
 * a clock the test moves. No emulator: a round takes about a millisecond.
 */
export function stepWorld(opts: StepWorldOptions = {}) {
  const clock = { now: new Date(NOW) };
  const f = fakeStores(clock, opts.turns ?? [{ text: "done" }]);
  const snapshot: { admin: AdminSnapshot } = {
    admin: admin({
      agents: [agentItem(opts.agent)],
      toolkits: [...(opts.toolkits ?? [])],
      approvers: [...(opts.approvers ?? [])],
      outboundRules: [...(opts.outboundRules ?? [])],
    }),
  };
  const common: Common = {
    config: configOf(opts.config),
    registry: new ToolRegistry(opts.tools ?? []),
    loadAdmin: async () => snapshot.admin,
    now: () => clock.now,
    sendOutbound: async (r) => void (await f.queue.send(QUEUES.outbound, r)),
    // Parsed with the consumer's schema, as the wiring does: a message agent-step would refuse is never sent.
    enqueue: async (m) => void (await f.queue.send(QUEUES.agentStep, stepPayloadSchema.parse(m))),
    webhooks: opts.webhooks ?? noWebhooks,
    ...(opts.opTimeoutMs === undefined ? {} : { opTimeoutMs: opts.opTimeoutMs }),
  };
  const step = loopDeps(f, common, opts.leaseMs ?? 60_000);
  let n = 0;
  /** The newest message the loop enqueued for this round, as the queue would deliver it; else a bare one. */
  const delivered = (runId: string, round: number): StepPayload =>
    f.queue
      .bodies(QUEUES.agentStep)
      .filter(
        (b): b is StepPayload => (b as StepPayload).runId === runId && (b as StepPayload).round === round,
      )
      .at(-1) ?? { runId, round };
  return {
    ...f,
    deps: handlerDeps(f, common, step),
    clock,
    snapshot,
    /** Store a received message and create its reply run, as verify does; returns the run id. */
    async startReplyRun(
      o: {
        sesMessageId?: string;
        from?: string;
        body?: string;
        threadId?: string;
        /** The mail's signed To/Cc (default: the agent alone). */
        to?: string[];
        cc?: string[];
      } = {},
    ) {
      const ses = o.sesMessageId ?? `ses-${++n}`;
      const ids = acceptedIds(ses, AGENT, clock.now.toISOString());
      const from = o.from ?? SENDER;
      const m = message({
        id: ids.messageId,
        threadId: o.threadId ?? `t-${ses}`,
        headerMessageId: `${ses}@example.com`,
        from,
        at: clock.now.toISOString(),
        fromName: "Alice",
        ...(o.to ? { to: o.to } : {}),
        ...(o.cc ? { cc: o.cc } : {}),
      });
      await f.blobs.put(m.bodyKey, o.body ?? "Please check my order 1234, it has not arrived.");
      await f.messages.put(m);
      await f.runs.create({
        runId: ids.runId,
        agent: AGENT,
        kind: "reply",
        messageId: ids.messageId,
        responsibilityId: null,
        sender: routingKey(from),
        threadId: m.threadId,
        maxRounds: configRoundLimit(common.config),
        correlationId: ses,
      });
      return ids.runId;
    },
    /** One delivery of one round: the message the loop enqueued for it (with carried results), if any. */
    step: (runId: string, round: number): Promise<StepOutcome> => runStep(delivered(runId, round), step),
    /** Deliver rounds from `round` until the run stops continuing (as the queue would, one at a time). */
    async drive(runId: string, round = 1): Promise<StepOutcome[]> {
      const out: StepOutcome[] = [];
      for (let r = round; ; ) {
        const o = await runStep(delivered(runId, r), step);
        out.push(o);
        if (o.status !== "continued") return out;
        r = o.next;
      }
    },
    /** The run's trace, as event types. */
    trace: async (runId: string) => (await f.log.list(runId)).map((e) => e.type),
  };
}

export type StepWorld = ReturnType<typeof stepWorld>;
