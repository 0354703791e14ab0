import { buildStepDeps } from "../../functions/agent-step/deps.ts";
import { createStepHandler } from "../../functions/agent-step/handler.ts";
import { defaultRegistry } from "../../functions/registry.ts";
import { buildVerifyDeps } from "../../functions/verify/deps.ts";
import { createVerifyHandler } from "../../functions/verify/handler.ts";
import { envSecretSource } from "../../shared/model/secret-source.ts";
import type { FunctionLogger } from "../../shared/runtime/logger.ts";
import { consoleFunctionLogger } from "./console-logger.ts";
import type { HandlerSet } from "./poller.ts";
import type { HandlerContext } from "./stack.ts";

/**
 * The real handlers, wired to the local stack exactly as CDK wires them in AWS (same deps builders), so the
 * local pipeline is the deployed pipeline with emulated services. Model keys come from the environment here.
 */
export function pipelineHandlers(
  ctx: HandlerContext,
  logger: (service: string) => FunctionLogger = consoleFunctionLogger,
): HandlerSet {
  const verifyLog = logger("verify");
  const stepLog = logger("agent-step");
  return {
    verify: createVerifyHandler(
      buildVerifyDeps({
        resources: ctx.resources,
        config: ctx.config.config,
        resolver: ctx.resolver,
        logger: verifyLog,
      }),
      ctx.resources.bucket,
      verifyLog,
    ),
    agentStep: createStepHandler(
      buildStepDeps({
        resources: ctx.resources,
        loaded: ctx.config,
        registry: defaultRegistry(),
        secrets: envSecretSource(),
        logger: stepLog,
        clients: ctx.clients,
      }),
      stepLog,
    ),
  };
}
