import type { DeploymentConfig } from "../config/index.ts";

/**
 * What this deployment offers an admin item, and so what every admin write is checked against: an
 * agent on a domain nobody routes, a model nobody serves or a tool nobody registered would be stored and then
 * fail at run time, where only a log line says so. Built from the deployment config and the tool registry by the
 * caller (the CLI, `admin import`, the console), so this layer stays free of both.
 */
export interface AdminCatalog {
  /** `config.domains`: an agent's address must be at one of them (G1 routes nothing else). */
  readonly domains: readonly string[];
  /** The ids of `config.models`: an agent's model must be one. */
  readonly models: readonly string[];
  /** Every tool and resolver name the registry holds: what a toolkit may grant. */
  readonly tools: readonly string[];
  /** `config.outbound.maxRecipients`: a confirm card goes to at most this many approvers (the outbound's cap). */
  readonly maxRecipients: number;
  /**
   * Which config the lists above come from, as a refusal names it; default `postern.config.json`. A running stack
   * runs the config it started with, so a refusal must not send the operator to a file that says otherwise.
   */
  readonly source?: string;
  /** Set when that file on disk now differs from the config the write was checked against: what to do about it. */
  readonly stale?: string;
}

/** Where a refusal sends the operator: the field, the config it was read from, and a restart when the file moved on. */
export function catalogCite(catalog: AdminCatalog, field: string): string {
  const cite = `"${field}" in ${catalog.source ?? "postern.config.json"}`;
  return catalog.stale ? `${cite}; ${catalog.stale}` : cite;
}

export function adminCatalog(
  config: DeploymentConfig,
  tools: readonly string[],
  from: Pick<AdminCatalog, "source" | "stale"> = {},
): AdminCatalog {
  return {
    domains: config.domains,
    models: config.models.map((m) => m.id),
    tools: [...new Set(tools)].sort(),
    maxRecipients: config.outbound.maxRecipients,
    ...(from.source ? { source: from.source } : {}),
    ...(from.stale ? { stale: from.stale } : {}),
  };
}

/**
 * Where a running stack's catalog comes from, as a refusal names it: the config it started with, and (when the
 * file on disk now says something else) that a restart is what runs the file. The CLI and the local console say
 * the same words.
 */
export function runningConfigCite(
  configFile: string | undefined,
  changed: readonly string[],
): Pick<AdminCatalog, "source" | "stale"> {
  return {
    source: `the config the running stack started with${configFile ? ` (${configFile})` : ""}`,
    ...(changed.length > 0
      ? {
          stale: `${changed.join(" and ")} on disk differs from it: restart the stack (Ctrl-C, then npm start) to run the file`,
        }
      : {}),
  };
}
