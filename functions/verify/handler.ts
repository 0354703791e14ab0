import { loadRuntimeConfig, resourcesFromEnv } from "../../shared/config/index.ts";
import { verifyDeps, verifySqsHandler } from "../../shared/intake/index.ts";
import { dnsResolverFromEnv, makeLogger } from "../../shared/runtime/index.ts";
import { makePlatform } from "../../shared/store/index.ts";

// Built once per cold start, from the environment CDK sets.
const logger = makeLogger("postern-verify");
const resources = resourcesFromEnv();
const platform = makePlatform({ resources, config: loadRuntimeConfig().config, logger });
const deps = verifyDeps(platform, { resolver: dnsResolverFromEnv() });

export const handler = verifySqsHandler(deps, { logger, bucket: resources.bucket });
