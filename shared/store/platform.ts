import { type AwsClients, makeClients } from "../aws/index.ts";
import type { DeploymentConfig, Resources } from "../config/index.ts";
import type { Logger } from "../logger.ts";
import { makeStores, type Stores } from "./stores.ts";

/**
 * What every composition root is handed, whoever calls it: a Lambda handler at cold start, the local stack, the
 * console, the CLI or a test. One set of AWS clients and the repositories over them, built once; each root takes
 * this and the few parts only it needs, `(platform, parts) => deps` (verify: a DNS resolver; agent-step: the
 * tool registry and the model secrets; outbound: the SES sender; the console: the tool registry).
 */
export interface Platform {
  readonly resources: Resources;
  readonly config: DeploymentConfig;
  readonly clients: AwsClients;
  readonly stores: Stores;
  readonly logger: Logger;
  readonly now: () => Date;
}

/** A platform over `resources`: the clients are built from them unless given (the local stack observes its own). */
export function makePlatform(opts: {
  readonly resources: Resources;
  readonly config: DeploymentConfig;
  readonly logger: Logger;
  readonly clients?: AwsClients;
  readonly now?: () => Date;
}): Platform {
  const clients = opts.clients ?? makeClients(opts.resources);
  return {
    resources: opts.resources,
    config: opts.config,
    clients,
    stores: makeStores(clients, opts.resources, opts.logger),
    logger: opts.logger,
    now: opts.now ?? (() => new Date()),
  };
}
