import { agentStepDeps, agentStepSqsHandler, maxReceivesFromEnv } from "../../shared/agent/index.ts";
import { loadRuntimeConfig, resourcesFromEnv } from "../../shared/config/index.ts";
import { makeLogger } from "../../shared/runtime/index.ts";
import { awsSecretSource } from "../../shared/secrets/index.ts";
import { makePlatform } from "../../shared/store/index.ts";
import { defaultContextResolvers, defaultRegistry } from "../../tools/index.ts";

// Built once per cold start, from the environment CDK sets.
const logger = makeLogger("postern-agent-step");
const loaded = loadRuntimeConfig();
const platform = makePlatform({ resources: resourcesFromEnv(), config: loaded.config, logger });
const deps = agentStepDeps(platform, {
  registry: defaultRegistry(),
  contextResolvers: defaultContextResolvers(),
  secrets: awsSecretSource(),
  baseDir: loaded.baseDir,
});

export const handler = agentStepSqsHandler(deps, { logger, maxReceives: maxReceivesFromEnv() });
