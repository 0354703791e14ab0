import { loadRuntimeConfig, resourcesFromEnv } from "../../shared/config/index.ts";
import { buildVerifyDeps, verifySqsHandler } from "../../shared/intake/index.ts";
import { dnsResolverFromEnv, makeLogger } from "../../shared/runtime/index.ts";

// Built once per cold start, from the environment CDK sets.
const logger = makeLogger("postern-verify");
const resources = resourcesFromEnv();
const deps = buildVerifyDeps({
  resources,
  config: loadRuntimeConfig().config,
  resolver: dnsResolverFromEnv(),
  logger,
});

export const handler = verifySqsHandler(deps, resources.bucket, logger);
