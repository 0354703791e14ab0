import { existsSync } from "node:fs";
import type { DeploymentConfig } from "../../shared/config/index.ts";
import { type LoadedConfig, loadConfigFile } from "../../shared/config/index.ts";
import { AdminRepo, AuditRepo, DEFAULT_TOOLKIT } from "../../shared/store/index.ts";
import { defaultRegistry } from "../../tools/index.ts";
import { ensureDemoFiles } from "../local/demo.ts";
import { openTableTarget } from "../target.ts";
import { type AdminIo, ioLogger, json, processIo, table } from "./admin-io.ts";
import { cliActor } from "./cli-actor.ts";

/** The model catalog as operators may see it (G16): id, label, provider, egress class, default. No key references. */
export function modelProjection(config: DeploymentConfig) {
  return config.models.map((m) => ({
    id: m.id,
    label: m.label ?? m.id,
    provider: m.provider,
    egress: m.egress,
    default: config.defaultModel === m.id,
  }));
}

function loadLocalConfig(path: string | undefined): LoadedConfig {
  if (path) return loadConfigFile(path);
  return loadConfigFile(
    existsSync("postern.config.json") ? "postern.config.json" : ensureDemoFiles(".postern"),
  );
}

/** The system toolkits: "default" (send_email and read_email, attached to every new agent) and "all" (every registered tool). */
export async function syncSystemToolkits(
  repo: AdminRepo,
  names: readonly string[],
): Promise<{ all: number }> {
  const all = (await repo.getToolkit("all")) ?? null;
  await repo.putToolkit({
    id: "all",
    name: "All tools",
    tools: [...names].sort(),
    agents: all?.agents ?? [],
    system: true,
  });
  const def = await repo.getToolkit("default");
  if (!def)
    await repo.putToolkit({
      ...DEFAULT_TOOLKIT,
      tools: [...DEFAULT_TOOLKIT.tools],
      agents: [],
      system: true,
    });
  return { all: names.length };
}

/** `postern models list`. */
export function modelsList(o: { config?: string; json?: boolean }, io: AdminIo = processIo): void {
  const rows = modelProjection(loadLocalConfig(o.config).config);
  io.out(
    o.json
      ? json(rows)
      : table(
          ["ID", "LABEL", "PROVIDER", "EGRESS", "DEFAULT"],
          rows.map((r) => [r.id, r.label, r.provider, r.egress, r.default ? "yes" : ""]),
        ),
  );
}

/** `postern toolkits sync`. */
export async function toolkitsSync(
  o: { target?: "local" | "aws"; resources?: string },
  io: AdminIo = processIo,
): Promise<void> {
  const target = await openTableTarget({
    target: o.target ?? (o.resources ? "aws" : "local"),
    ...(o.resources ? { resourcesFile: o.resources } : {}),
  });
  try {
    const repo = new AdminRepo({
      dynamo: target.clients.dynamo,
      tables: target.resources.tables,
      logger: ioLogger(io),
      audit: {
        log: new AuditRepo({ dynamo: target.clients.dynamo, tables: target.resources.tables }),
        actor: cliActor(),
      },
    });
    const done = await syncSystemToolkits(repo, defaultRegistry().names());
    io.out(`toolkit "all" now holds ${done.all} tools\n`);
  } finally {
    await target.close();
  }
}
