import { agentStepDeps, agentStepSqsHandler } from "../../shared/agent/index.ts";
import { makeClients, makeSendingSesClient, sesSender } from "../../shared/aws/index.ts";
import { verifyDeps, verifySqsHandler } from "../../shared/intake/index.ts";
import type { KeyedLogger } from "../../shared/logger.ts";
import type { ModelProvider } from "../../shared/model/index.ts";
import { outboundDeps, outboundSqsHandler } from "../../shared/outbound/index.ts";
import { makeBasePlatform, makePlatform } from "../../shared/store/index.ts";
import type { ToolRegistry } from "../../shared/tool-framework/index.ts";
import {
  fileSecretStore,
  type SecretStore,
  webhookSinkFor,
  webhooksDeps,
  webhooksSqsHandler,
} from "../../shared/webhooks/index.ts";
import { defaultContextResolvers, defaultRegistry } from "../../tools/index.ts";
import { consoleFunctionLogger } from "./console-logger.ts";
import type { HandlerSet } from "./poller.ts";
import { localSecretSource, localSecretsFile } from "./secrets-file.ts";
import type { HandlerContext } from "./stack.ts";

/**
 * The real handlers, wired to the local stack exactly as CDK wires them in AWS (same deps builders), so the
 * local pipeline is the deployed pipeline with emulated services. Model keys come from the environment here.
 */
export function pipelineHandlers(
  ctx: HandlerContext,
  logger: (service: string) => KeyedLogger = consoleFunctionLogger,
  registry: ToolRegistry = defaultRegistry(),
  /** Overrides the catalog's models (bench:cost records what agent-step sends them). */
  models?: (id: string) => ModelProvider | null,
): HandlerSet {
  const verifyLog = logger("verify");
  const stepLog = logger("agent-step");
  const outLog = logger("outbound");
  const hookLog = logger("webhooks");
  // Each function has its own clients, as in AWS, so an observer can tell whose call each one is.
  const clientsOf = (fn: "verify" | "agent-step" | "outbound" | "webhooks") =>
    ctx.observe ? makeClients(ctx.resources, ctx.observe(fn)) : ctx.clients;
  // Each function's platform, as its handler builds it at cold start (functions/*/handler.ts).
  const platformOf = (fn: "verify" | "agent-step" | "outbound", logger: KeyedLogger) =>
    makePlatform({ resources: ctx.resources, config: ctx.config.config, logger, clients: clientsOf(fn) });
  return {
    verify: verifySqsHandler(verifyDeps(platformOf("verify", verifyLog), { resolver: ctx.resolver }), {
      logger: verifyLog,
      bucket: ctx.resources.bucket,
    }),
    agentStep: agentStepSqsHandler(
      agentStepDeps(platformOf("agent-step", stepLog), {
        registry,
        contextResolvers: defaultContextResolvers(),
        secrets: localSecretSource(ctx.dir),
        baseDir: ctx.config.baseDir,
        // The local stack runs on the operator's machine: stdio MCP servers (its child processes) and servers on
        // loopback are allowed here, and only here (the Lambda handler never sets this).
        mcp: { local: { allowStdio: true, allowLoopback: true } },
        ...(models ? { models } : {}),
      }),
      { logger: stepLog, maxReceives: ctx.maxReceiveCount },
    ),
    outbound: outboundSqsHandler(
      (() => {
        const platform = platformOf("outbound", outLog);
        return outboundDeps(platform, {
          // Its own client with SDK retries off: a retried SendEmail can send twice (see docs/outbound.md).
          ses: sesSender(makeSendingSesClient(ctx.resources, ctx.observe?.("outbound"))),
          webhooks: webhookSinkFor(platform),
        });
      })(),
      { logger: outLog },
    ),
    ...(ctx.resources.queues.events ? { events: eventsWorker(ctx, hookLog, clientsOf("webhooks")) } : {}),
  };
}

/**
 * The events worker as its Lambda is wired, with the stack's secrets file standing in for Secrets Manager (bench:cost
 * passes a Secrets Manager store over the file, to count the reads the Lambda would make).
 */
export function eventsWorker(
  ctx: HandlerContext,
  log: KeyedLogger,
  clients: ReturnType<typeof makeClients>,
  secrets: SecretStore = fileSecretStore(localSecretsFile(ctx.dir)),
) {
  return webhooksSqsHandler(
    webhooksDeps(makeBasePlatform({ resources: ctx.resources, logger: log, clients }), {
      secrets,
      ...(ctx.webhookLoopback ? { allowLoopback: true } : {}),
      ...(ctx.webhookPolicy ? { policy: ctx.webhookPolicy } : {}),
    }),
  );
}
