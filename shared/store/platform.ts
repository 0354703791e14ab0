import { type AwsClients, makeClients } from "../aws/index.ts";
import type { DeploymentConfig, Resources } from "../config/index.ts";
import type { Logger } from "../logger.ts";
import { makeStores, type Stores } from "./stores.ts";

/**
 * What every composition root is handed, whoever calls it: a Lambda handler at cold start, the local stack, the
 * console, the CLI or a test. One set of AWS clients and the repositories over them, built once; each root takes
 * a platform and the few parts only it needs, `(platform, parts) => deps`.
 *
 * Two sizes, one the other's extension rather than a config loaded on first read: the delivery-events and
 * webhooks functions read no deployment config (no agents' models, no limits), and a lazily loaded one would
 * still put the config's loader and schema in their bundles and make a broken config file break them on some later
 * read. So their roots take the BasePlatform, which has no config to read, and the type says so.
 */
export interface BasePlatform {
  readonly resources: Resources;
  readonly clients: AwsClients;
  readonly stores: Stores;
  readonly logger: Logger;
  readonly now: () => Date;
}

/**
 * The platform of a root that reads the deployment config (verify: a DNS resolver; agent-step: the tool registry
 * and the model secrets; outbound: the SES sender; the console: the tool registry).
 */
export interface Platform extends BasePlatform {
  readonly config: DeploymentConfig;
}

/**
 * A platform without the deployment config over `resources`: the clients are built from them unless given (the
 * local stack observes its own). The logger's own type is kept (a handler's keyed logger stays keyed).
 */
export function makeBasePlatform<L extends Logger>(opts: {
  readonly resources: Resources;
  readonly logger: L;
  readonly clients?: AwsClients;
  readonly now?: () => Date;
}): BasePlatform & { readonly logger: L } {
  const clients = opts.clients ?? makeClients(opts.resources);
  return {
    resources: opts.resources,
    clients,
    stores: makeStores(clients, opts.resources, opts.logger),
    logger: opts.logger,
    now: opts.now ?? (() => new Date()),
  };
}

/** A platform over `resources` with the deployment config its caller loaded. */
export function makePlatform(opts: {
  readonly resources: Resources;
  readonly config: DeploymentConfig;
  readonly logger: Logger;
  readonly clients?: AwsClients;
  readonly now?: () => Date;
}): Platform {
  return { ...makeBasePlatform(opts), config: opts.config };
}
