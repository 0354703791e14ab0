import type { DNSResolver } from "mailauth";
import { makeClients } from "../../shared/aws/clients.ts";
import type { Resources } from "../../shared/config/resources.ts";
import type { DeploymentConfig } from "../../shared/config/schema.ts";
import { makeStores } from "../../shared/store/stores.ts";
import type { Logger } from "../../shared/tools/context.ts";
import type { VerifyDeps } from "../../shared/verify/process.ts";

/** Wire the verify core to real adapters: the same function in Lambda (from env) and in the local stack. */
export function buildVerifyDeps(opts: {
  resources: Resources;
  config: DeploymentConfig;
  resolver: DNSResolver;
  logger: Logger;
  now?: () => Date;
}): VerifyDeps {
  const { resources, logger } = opts;
  const stores = makeStores(makeClients(resources), resources, logger);
  return {
    config: opts.config,
    loadAdmin: () => stores.admin.snapshot(),
    resolver: opts.resolver,
    now: opts.now ?? (() => new Date()),
    inbound: stores.inbound,
    blobs: stores.blobs,
    stores,
    enqueueStep: async (m) => void (await stores.queue.send(resources.queues.agentStep, m)),
    enqueueOutbound: async (r) => void (await stores.queue.send(resources.queues.outbound, r)),
    logger,
  };
}
