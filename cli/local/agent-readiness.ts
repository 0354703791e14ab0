import { relative } from "node:path";
import type { LoadedConfig, ModelEntry } from "../../shared/config/index.ts";
import { modelReadiness, type Readiness } from "./model-readiness.ts";

/**
 * What `npm start` refuses to start with: an agent whose model is not in the catalog, whose scripted model's script
 * is missing, or whose model server does not answer. Without this the stack starts, the first mail's run fails a
 * minute later and the cause is only in the stack's log. One line per agent, naming the file to fix.
 */
export async function unreadyAgents(opts: {
  readonly agents: readonly { readonly address: string; readonly model: string }[];
  readonly config: LoadedConfig;
  /** The config file the stack runs with. */
  readonly configFile: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly fetch?: typeof fetch;
}): Promise<string[]> {
  const near = relative(process.cwd(), opts.configFile);
  const shown = near && !near.startsWith("..") ? near : opts.configFile;
  const byId = new Map<string, ModelEntry>(opts.config.config.models.map((m) => [m.id, m]));
  const checked = new Map<string, Promise<Readiness>>();
  const lines: string[] = [];
  for (const agent of opts.agents) {
    const entry = byId.get(agent.model);
    if (!entry) {
      lines.push(
        `agent ${agent.address}: model ${agent.model} is not in the catalog of ${shown}; add it there, or change the agent's model (\`npx postern agents add --replace --address ${agent.address} ... --model <id>\`) or remove it (\`npx postern agents remove ${agent.address}\`)`,
      );
      continue;
    }
    if (!checked.has(entry.id))
      checked.set(
        entry.id,
        modelReadiness(entry, {
          depth: "reach",
          baseDir: opts.config.baseDir,
          configFile: shown,
          ...(opts.env ? { env: opts.env } : {}),
          ...(opts.fetch ? { fetch: opts.fetch } : {}),
        }),
      );
    const r = await checked.get(entry.id);
    if (r?.status === "fail") lines.push(`agent ${agent.address}: ${r.detail}; ${r.fix}`);
  }
  return lines;
}
