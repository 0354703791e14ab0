import type { DeploymentConfig } from "../config/index.ts";
import type { AgentItem } from "./schema.ts";

/** The round limit when the config names none (G10). */
export const DEFAULT_MAX_ROUNDS = 8;

type RoundCaps = Pick<DeploymentConfig, "maxRounds" | "maxToolTurns">;

/** The deployment's round limit: `maxRounds`, or its former name `maxToolTurns` (read for one release). */
export function configRoundLimit(config: RoundCaps): number {
  return config.maxRounds ?? config.maxToolTurns ?? DEFAULT_MAX_ROUNDS;
}

/**
 * The most model rounds one of this agent's runs may take (G10): the deployment's limit, lowered by the agent's
 * own. Both read `maxRounds` first and its former name `maxToolTurns` after, so a deployed config or a stored
 * agent written before the rename keeps its limit.
 */
export function roundLimit(config: RoundCaps, agent: Pick<AgentItem, "maxRounds" | "maxToolTurns">): number {
  const own = agent.maxRounds ?? agent.maxToolTurns;
  const global = configRoundLimit(config);
  return own === undefined ? global : Math.min(global, own);
}
