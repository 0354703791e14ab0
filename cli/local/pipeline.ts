import { join } from "node:path";
import { agentStepSqsHandler } from "../../shared/agent/sqs-handler.ts";
import { buildStepDeps } from "../../shared/agent/wiring.ts";
import { makeClients } from "../../shared/aws/clients.ts";
import { makeSendingSesClient, sesSender } from "../../shared/aws/ses-sender.ts";
import {
  buildEventsWorker,
  eventSinkFor,
  eventsSqsHandler,
  fileSecretStore,
} from "../../shared/events/index.ts";
import { verifySqsHandler } from "../../shared/intake/sqs-handler.ts";
import { buildVerifyDeps } from "../../shared/intake/wiring.ts";
import type { KeyedLogger } from "../../shared/logger.ts";
import { envSecretSource } from "../../shared/model/secret-source.ts";
import type { ModelProvider } from "../../shared/model/types.ts";
import { outboundSqsHandler } from "../../shared/outbound/sqs-handler.ts";
import { outboundDeps } from "../../shared/outbound/wiring.ts";
import { failureReporter } from "../../shared/store/failure-reporter.ts";
import { makeStores } from "../../shared/store/stores.ts";
import type { ToolRegistry } from "../../shared/tool-framework/registry.ts";
import { defaultRegistry, defaultResolvers } from "../../tools/index.ts";
import { consoleFunctionLogger } from "./console-logger.ts";
import type { HandlerSet } from "./poller.ts";
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
  const outClients = clientsOf("outbound");
  return {
    verify: verifySqsHandler(
      buildVerifyDeps({
        resources: ctx.resources,
        config: ctx.config.config,
        resolver: ctx.resolver,
        logger: verifyLog,
        clients: clientsOf("verify"),
      }),
      ctx.resources.bucket,
      verifyLog,
    ),
    agentStep: agentStepSqsHandler(
      buildStepDeps({
        resources: ctx.resources,
        loaded: ctx.config,
        registry,
        resolvers: defaultResolvers(),
        secrets: envSecretSource(),
        // The local stack runs on the operator's machine: stdio MCP servers (its child processes) and servers on
        // loopback are allowed here, and only here (the Lambda handler never sets this).
        mcp: { local: { allowStdio: true, allowLoopback: true } },
        logger: stepLog,
        clients: clientsOf("agent-step"),
        ...(models ? { models } : {}),
      }),
      stepLog,
      ctx.maxReceiveCount,
    ),
    outbound: outboundSqsHandler(
      outboundDeps({
        stores: makeStores(outClients, ctx.resources, outLog),
        // Its own client with SDK retries off: a retried SendEmail can send twice (see docs/outbound.md).
        ses: sesSender(makeSendingSesClient(ctx.resources, ctx.observe?.("outbound"))),
        config: ctx.config.config,
        region: ctx.resources.region,
        logger: outLog,
        webhooks: eventSinkFor({ resources: ctx.resources, sqs: outClients.sqs, logger: outLog }),
      }),
      outLog,
    ),
    ...(ctx.resources.queues.events ? { events: eventsWorker(ctx, hookLog, clientsOf("webhooks")) } : {}),
  };
}

/** The events worker as its Lambda is wired, with the stack's secrets file standing in for Secrets Manager. */
function eventsWorker(ctx: HandlerContext, log: KeyedLogger, clients: ReturnType<typeof makeClients>) {
  const stores = makeStores(clients, ctx.resources, log);
  return eventsSqsHandler(
    buildEventsWorker({
      resources: ctx.resources,
      sqs: clients.sqs,
      dynamo: clients.dynamo,
      admin: stores.admin,
      secrets: fileSecretStore(localSecretsFile(ctx.dir)),
      failures: failureReporter({
        log: stores.failures,
        runs: stores.runs,
        events: stores.runEvents,
        logger: log,
        now: () => new Date(),
      }),
      logger: log,
      ...(ctx.webhookLoopback ? { allowLoopback: true } : {}),
      ...(ctx.webhookPolicy ? { policy: ctx.webhookPolicy } : {}),
    }),
  );
}

/** The local stack's secrets file: where `postern webhooks add` keeps signing secrets locally (G16). */
export function localSecretsFile(stackDir: string): string {
  return join(stackDir, "secrets.json");
}
