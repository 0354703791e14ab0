import { type Command, Option } from "commander";
import { type AdminIo, processIo } from "./admin-io.ts";

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
    .action(async (o: { config?: string; json?: boolean }) => {
      const { modelsList } = await import("./catalog-actions.ts");
      modelsList(o, io);
    });

  const toolkits = program.commands.find((c) => c.name() === "toolkits") ?? program.command("toolkits");
  toolkits
    .command("sync")
    .description(
      'make the system toolkit "all" hold every registered tool (built-in and tools/), and ensure "default" exists',
    )
    .addOption(new Option("--target <where>", "local (default) or aws").choices(["local", "aws"]))
    .option("--resources <file>", "AWS resource names as JSON (the stack outputs)")
    .action(async (o: { target?: "local" | "aws"; resources?: string }) => {
      const { toolkitsSync } = await import("./catalog-actions.ts");
      await toolkitsSync(o, io);
    });
}
