import { type Command, Option } from "commander";
import { positiveInt } from "../options.ts";
import type { RunsFlags } from "./runs-actions.ts";

export function registerRunsCommands(program: Command): void {
  const runs = program
    .command("runs")
    .description("agent runs and their traces (every model turn, tool call and gate decision)");
  const common = (c: Command) =>
    c
      .addOption(new Option("--target <where>", "local (default) or aws").choices(["local", "aws"]))
      .option("--data-dir <dir>", "local emulator state (default .postern/data)")
      .option("--resources <file>", "AWS resource names as JSON (the stack outputs)")
      .option("--json", "JSON output");
  common(runs.command("list").description("recent runs, newest first"))
    .option("--limit <n>", "how many", positiveInt, 20)
    .action(async (o: RunsFlags) => {
      const { runsList } = await import("./runs-actions.ts");
      process.exitCode = await runsList(o);
    });
  common(runs.command("show <runId>").description("one run as a readable tree")).action(
    async (id: string, o: RunsFlags) => {
      const { runsShow } = await import("./runs-actions.ts");
      process.exitCode = await runsShow(id, o);
    },
  );
  common(
    runs
      .command("failures")
      .description("recent failures: refused sends, unsent cards and notices, failed runs and plans"),
  )
    .option("--days <n>", "how many days back", positiveInt, 7)
    .option("--limit <n>", "how many", positiveInt, 50)
    .action(async (o: RunsFlags) => {
      const { runsFailures } = await import("./runs-actions.ts");
      process.exitCode = await runsFailures(o);
    });
}
