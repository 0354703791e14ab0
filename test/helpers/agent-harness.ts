import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import * as z from "zod";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { configRoundLimit } from "../../shared/admin/round-limit.ts";
import type { StepParts } from "../../shared/agent/wiring/wired.ts";
import { agentStepDeps } from "../../shared/agent/wiring.ts";
import { makeClients } from "../../shared/aws/clients.ts";
import { parseConfig } from "../../shared/config/load.ts";
import type { Budgets } from "../../shared/config/schema.ts";
import { routingKey } from "../../shared/gate/address.ts";
import { acceptedIds } from "../../shared/intake/store-accepted.ts";
import { parseScript } from "../../shared/model/script.ts";
import { scriptedModel } from "../../shared/model/scripted.ts";
import type { ModelProvider, ModelRequest } from "../../shared/model/types.ts";
import type { StepPayload } from "../../shared/payloads/agent-step.ts";
import { envSecretSource } from "../../shared/secrets/source.ts";
import { makePlatform } from "../../shared/store/index.ts";
import type { ContextResolver } from "../../shared/tool-framework/context-resolver.ts";
import { ToolRegistry } from "../../shared/tool-framework/registry.ts";
import { defineTool, success, type Tool } from "../../shared/tool-framework/tool.ts";
import { type RecordingLogger, recordingLogger } from "../fakes/recording-logger.ts";

export const AGENT = "helpdesk@agents.example.net";
export const SENDER = "alice@example.com";

/** A tool with a real, countable side effect, so tests can prove "exactly once". */
export function counterTool(name: string, counts: Map<string, number>): Tool {
  return defineTool({
    name,
    description: `Test tool ${name}: records that it ran.`,
    summary: "test side effect",
    input: z.object({ note: z.string().max(100).optional() }).strict(),
    egress: { kind: "structure" },
    sideEffects: { kind: "internal" },
    async use(ctx) {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return success({ ran: name, sender: ctx.sender?.routingKey ?? null });
    },
  });
}

/**
 * The one recording logger (test/fakes/recording-logger.ts) under its old name, for the console's tests (test/console,
 * owned by the console work) until they import it directly. New tests import recordingLogger.
 */
export { recordingLogger as recorder };
export type Recorder = RecordingLogger;

/** Counts model calls around any provider. */
export function counting(provider: ModelProvider): ModelProvider & { calls: ModelRequest[] } {
  const calls: ModelRequest[] = [];
  return {
    ...provider,
    calls,
    generate: (req) => {
      calls.push(req);
      return provider.generate(req);
    },
  };
}

export interface Harness {
  readonly emulators: Emulators;
  /** The real wiring: StepDeps plus `startDue(tick)` and the stores. */
  readonly deps: ReturnType<typeof agentStepDeps>;
  readonly logger: RecordingLogger;
  /** Seeds a received message and its reply run, as verify would; returns the run id. */
  startReplyRun(opts?: {
    sesMessageId?: string;
    body?: string;
    subject?: string;
    /** The verified From address (default SENDER); the run's sender is its routing key. */
    from?: string;
    /** Puts the message in an existing thread (default: a new thread per message). */
    threadId?: string;
  }): Promise<string>;
  stop(): Promise<void>;
  /** The message the loop enqueued for a round, taken off the agent-step queue (bare when none is there). */
  queued(runId: string, round: number): Promise<StepPayload>;
}

export async function startHarness(opts: {
  tools: readonly Tool[];
  toolkits: readonly {
    id: string;
    tools: string[];
    senderRules?: { pattern: string; effect: "allow" | "deny" }[];
    allowScheduled?: boolean;
    /** Default: attached to AGENT only. */
    agents?: string[];
  }[];
  model: ModelProvider;
  maxToolTurns?: number;
  leaseMs?: number;
  /** Deployment budgets (G10); unspecified fields keep the config defaults. */
  budgets?: Partial<Budgets>;
  resolvers?: readonly ContextResolver[];
  egress?: "internal" | "external";
  /** The deployment's restricted data classes (G13, G18). */
  restrictedClasses?: string[];
  /** MCP servers' reach (the local-only setting a test server on 127.0.0.1 needs). */
  mcp?: StepParts["mcp"];
}): Promise<Harness> {
  const emulators = await startEmulators();
  const loaded = {
    config: parseConfig({
      domains: ["agents.example.net"],
      maxToolTurns: opts.maxToolTurns ?? 8,
      ...(opts.budgets ? { budgets: opts.budgets } : {}),
      ...(opts.restrictedClasses ? { egress: { restrictedClasses: opts.restrictedClasses } } : {}),
      // The model's egress class decides what the egress gate lets through (G13).
      models: [
        { id: "demo", provider: "scripted", script: "unused.json", egress: opts.egress ?? "internal" },
      ],
    }),
    baseDir: process.cwd(),
  };
  const logger = recordingLogger();
  const platform = makePlatform({ resources: emulators.resources, config: loaded.config, logger });
  const deps = agentStepDeps(platform, {
    registry: new ToolRegistry(opts.tools),
    secrets: envSecretSource({}),
    baseDir: loaded.baseDir,
    models: (id) => (id === "demo" ? opts.model : null),
    leaseMs: opts.leaseMs ?? 60_000,
    ...(opts.resolvers ? { contextResolvers: opts.resolvers } : {}),
    ...(opts.mcp ? { mcp: opts.mcp } : {}),
  });

  const { stores } = deps;
  await stores.admin.putAgent({ address: AGENT, name: "Helpdesk", model: "demo", instructions: "Help." });
  for (const kit of opts.toolkits) await stores.admin.putToolkit({ agents: [AGENT], ...kit });
  let n = 0;
  return {
    emulators,
    deps,
    logger,
    async startReplyRun(o = {}) {
      const ses = o.sesMessageId ?? `ses-${++n}`;
      const at = new Date("2026-11-29T12:00:00Z").toISOString();
      const ids = acceptedIds(ses, AGENT, at);
      const from = o.from ?? SENDER;
      const threadId = o.threadId ?? `t-${ses}`;
      const bodyKey = `mail/${AGENT}/${ids.messageId}/body.txt`;
      await stores.blobs.put(bodyKey, o.body ?? "Please check my order 1234, it has not arrived.");
      await stores.messages.put({
        agent: AGENT,
        id: ids.messageId,
        direction: "in",
        threadId,
        headerMessageId: `${ses}@example.com`,
        inReplyTo: null,
        references: [],
        from,
        to: [AGENT],
        cc: [],
        subject: o.subject ?? "Order 1234",
        at,
        bodyKey,
        hasHtmlOnly: false,
        attachments: [],
        hop: 0,
      });
      await stores.runs.create({
        runId: ids.runId,
        agent: AGENT,
        kind: "reply",
        messageId: ids.messageId,
        responsibilityId: null,
        sender: routingKey(from),
        threadId,
        maxRounds: configRoundLimit(loaded.config),
        correlationId: ses,
      });
      return ids.runId;
    },
    /**
     * The message the loop enqueued for this round (its carried results included), taken off the agent-step queue
     * as the function would receive it; a bare {runId, round} when none is there.
     */
    async queued(runId: string, round: number): Promise<StepPayload> {
      const sqs = makeClients(emulators.resources).sqs;
      const got = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: emulators.resources.queues.agentStep,
          MaxNumberOfMessages: 10,
        }),
      );
      const bodies = (got.Messages ?? []).map((m) => JSON.parse(m.Body ?? "{}") as StepPayload);
      return bodies.filter((m) => m.runId === runId && m.round === round).at(-1) ?? { runId, round };
    },
    stop: () => emulators.stop(),
  };
}

export function scripted(turns: unknown[]): ModelProvider {
  return scriptedModel(parseScript({ turns }), "demo");
}
