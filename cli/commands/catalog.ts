import { existsSync } from "node:fs";
import type { Command } from "commander";
import { type LoadedConfig, loadConfigFile } from "../../shared/config/load.ts";
import type { DeploymentConfig } from "../../shared/config/schema.ts";
import { AdminRepo, DEFAULT_TOOLKIT } from "../../shared/store/admin-repo.ts";
import { defaultRegistry } from "../../tools/index.ts";
import { ensureDemoFiles } from "../local/demo.ts";
import { openTarget } from "../target.ts";
import { type AdminIo, ioLogger, json, processIo, table } from "./admin-io.ts";

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

export function registerCatalogCommands(program: Command, io: AdminIo = processIo): void {
  const models = program
    .command("models")
    .description("the model catalog from postern.config.json (no secrets)");
  models
    .command("list")
    .description(
      "id, label, provider, egress class and default of every catalog model; never a key or key reference",
    )
    .option("--config <file>", "deployment config (default postern.config.json, else the local demo config)")
    .option("--json", "JSON output")
    .action((o: { config?: string; json?: boolean }) => {
      const rows = modelProjection(loadLocalConfig(o.config).config);
      io.out(
        o.json
          ? json(rows)
          : table(
              ["ID", "LABEL", "PROVIDER", "EGRESS", "DEFAULT"],
              rows.map((r) => [r.id, r.label, r.provider, r.egress, r.default ? "yes" : ""]),
            ),
      );
    });

  const toolkits = program.commands.find((c) => c.name() === "toolkits") ?? program.command("toolkits");
  toolkits
    .command("sync")
    .description(
      'make the system toolkit "all" hold every registered tool (built-in and tools/), and ensure "default" exists',
    )
    .option("--target <where>", "local (default) or aws")
    .option("--resources <file>", "AWS resource names as JSON (the stack outputs)")
    .action(async (o: { target?: "local" | "aws"; resources?: string }) => {
      const target = await openTarget({
        target: o.target ?? (o.resources ? "aws" : "local"),
        ...(o.resources ? { resourcesFile: o.resources } : {}),
      });
      try {
        const repo = new AdminRepo({
          dynamo: target.clients.dynamo,
          tables: target.resources.tables,
          logger: ioLogger(io),
        });
        const done = await syncSystemToolkits(repo, defaultRegistry().names());
        io.out(`toolkit "all" now holds ${done.all} tools\n`);
      } finally {
        await target.close();
      }
    });
}
