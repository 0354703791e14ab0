import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { loadRuntimeConfig } from "../../shared/config/runtime.ts";
import { dnsResolverFromEnv } from "../../shared/runtime/dns.ts";
import { makeLogger } from "../../shared/runtime/logger.ts";
import { verifySqsHandler } from "../../shared/verify/sqs-handler.ts";
import { buildVerifyDeps } from "../../shared/verify/wiring.ts";

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
