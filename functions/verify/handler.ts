import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { loadRuntimeConfig } from "../../shared/config/runtime.ts";
import { verifySqsHandler } from "../../shared/intake/sqs-handler.ts";
import { buildVerifyDeps } from "../../shared/intake/wiring.ts";
import { dnsResolverFromEnv } from "../../shared/runtime/dns.ts";
import { makeLogger } from "../../shared/runtime/logger.ts";

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
