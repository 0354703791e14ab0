import { agentStepSqsHandler, maxReceivesFromEnv } from "../../shared/agent/sqs-handler.ts";
import { buildStepDeps } from "../../shared/agent/wiring.ts";
import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { loadRuntimeConfig } from "../../shared/config/runtime.ts";
import { awsSecretSource } from "../../shared/model/aws-secret-source.ts";
import { makeLogger } from "../../shared/runtime/logger.ts";
import { defaultRegistry, defaultResolvers } from "../../tools/index.ts";

// Built once per cold start, from the environment CDK sets.
const logger = makeLogger("postern-agent-step");
const deps = buildStepDeps({
  resources: resourcesFromEnv(),
  loaded: loadRuntimeConfig(),
  registry: defaultRegistry(),
  resolvers: defaultResolvers(),
  secrets: awsSecretSource(),
  logger,
});

export const handler = agentStepSqsHandler(deps, logger, maxReceivesFromEnv());
