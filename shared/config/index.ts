// Front door of shared/config: the deployment config, the resources from the environment, the table and key
// lists. Outside this folder, import this file only (docs/architecture.md).

export { changedConfigFiles } from "./config-drift.ts";
export { ConfigError, formatIssues, type LoadedConfig, loadConfigFile } from "./load.ts";
export { ENV, type Resources, resourcesFromEnv, tableEnvName } from "./resources.ts";
export { CONFIG_ENV, loadRuntimeConfig } from "./runtime.ts";
export {
  type AccessRule,
  type AttachmentLimits,
  accessEffect,
  accessPattern,
  accessRule,
  type DeploymentConfig,
  domainName,
  type ModelEntry,
  SUBDOMAIN_WILDCARD,
} from "./schema.ts";
export { PREFIXES, STATE_KEYS, TABLE_KEYS, TABLES, type TableKey, type TableSpec } from "./tables.ts";
