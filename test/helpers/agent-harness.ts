import { z } from "zod";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { buildStepDeps } from "../../functions/agent-step/deps.ts";
import type { StepDeps } from "../../shared/agent/ports.ts";
import { parseConfig } from "../../shared/config/load.ts";
import { parseScript } from "../../shared/model/script.ts";
import { scriptedModel } from "../../shared/model/scripted.ts";
import { envSecretSource } from "../../shared/model/secret-source.ts";
import type { ModelProvider, ModelRequest } from "../../shared/model/types.ts";
import type { Stores } from "../../shared/store/stores.ts";
import type { Logger } from "../../shared/tools/context.ts";
import { ToolRegistry } from "../../shared/tools/registry.ts";
import { defineTool, success, type Tool } from "../../shared/tools/tool.ts";
import { acceptedIds } from "../../shared/verify/store-accepted.ts";

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

export interface Recorder extends Logger {
  readonly lines: { level: string; message: string; extra?: Record<string, unknown> }[];
}
export function recorder(): Recorder {
  const lines: Recorder["lines"] = [];
  const at = (level: string) => (message: string, extra?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(extra ? { extra } : {}) });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

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
  readonly deps: StepDeps & { stores: Stores };
  readonly logger: Recorder;
  /** Seeds a received message and its reply run, as verify would; returns the run id. */
  startReplyRun(opts?: { sesMessageId?: string; body?: string; subject?: string }): Promise<string>;
  stop(): Promise<void>;
}

export async function startHarness(opts: {
  tools: readonly Tool[];
  toolkits: readonly {
    id: string;
    tools: string[];
    senderRules?: { pattern: string; effect: "allow" | "deny" }[];
    allowScheduled?: boolean;
  }[];
  model: ModelProvider;
  maxToolTurns?: number;
  leaseMs?: number;
}): Promise<Harness> {
  const emulators = await startEmulators();
  const loaded = {
    config: parseConfig({
      domains: ["agents.example.net"],
      maxToolTurns: opts.maxToolTurns ?? 8,
      models: [{ id: "demo", provider: "scripted", script: "unused.json", egress: "internal" }],
    }),
    baseDir: process.cwd(),
  };
  const logger = recorder();
  const deps = buildStepDeps({
    resources: emulators.resources,
    loaded,
    registry: new ToolRegistry(opts.tools),
    secrets: envSecretSource({}),
    logger,
    models: (id) => (id === "demo" ? opts.model : null),
    leaseMs: opts.leaseMs ?? 60_000,
  });
  const { stores } = deps;
  await stores.admin.putAgent({ address: AGENT, name: "Helpdesk", model: "demo", instructions: "Help." });
  for (const kit of opts.toolkits) await stores.admin.putToolkit({ ...kit, agents: [AGENT] });
  let n = 0;
  return {
    emulators,
    deps,
    logger,
    async startReplyRun(o = {}) {
      const ses = o.sesMessageId ?? `ses-${++n}`;
      const at = new Date("2026-11-29T12:00:00Z").toISOString();
      const ids = acceptedIds(ses, AGENT, at);
      const bodyKey = `mail/${AGENT}/${ids.messageId}/body.txt`;
      await stores.blobs.put(bodyKey, o.body ?? "Please check my order 1234, it has not arrived.");
      await stores.messages.put({
        agent: AGENT,
        id: ids.messageId,
        direction: "in",
        threadId: `t-${ses}`,
        headerMessageId: `${ses}@example.com`,
        inReplyTo: null,
        references: [],
        from: SENDER,
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
        sender: SENDER,
        threadId: `t-${ses}`,
        maxRounds: loaded.config.maxToolTurns,
        correlationId: ses,
        transcriptKey: `transcripts/${ids.runId}.json`,
      });
      return ids.runId;
    },
    stop: () => emulators.stop(),
  };
}

export function scripted(turns: unknown[]): ModelProvider {
  return scriptedModel(parseScript({ turns }), "demo");
}
