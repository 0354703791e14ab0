import { readFileSync } from "node:fs";
import { Command } from "commander";
import { registerAdminCommands } from "./commands/admin.ts";
import { registerCatalogCommands } from "./commands/catalog.ts";
import { registerCheckCommand } from "./commands/check.ts";
import { registerConsoleCommands } from "./commands/console.ts";
import { registerDevCommands } from "./commands/dev.ts";
import { registerDoctorCommand } from "./commands/doctor.ts";
import { registerOutboundCommands } from "./commands/outbound.ts";
import { registerRunsCommands } from "./commands/runs.ts";
import { registerSecretsCommands } from "./commands/secrets.ts";
import { registerSendCommand } from "./commands/send.ts";
import { registerStartCommand } from "./commands/start.ts";
import { registerWebhooksCommands } from "./commands/webhooks.ts";

/**
 * `postern`: the operator's command line, as commander definitions only. Each area registers its own commands
 * and loads what they run on use, so building this tree stays cheap (`postern --help` in a blink); the
 * top-level handler (run-cli.ts), the reference docs (docs/cli.md) and the tests all read this one tree.
 */
export function buildProgram(): Command {
  const program = new Command("postern")
    .description(
      "Email addresses for AI agents on AWS, behind gates that code enforces.\n\n" +
        "Local: `postern start` runs the whole pipeline on this machine and `postern dev send` mails it.\n" +
        "Admin commands reach the running local stack (.postern/stack.json), or AWS from the usual AWS environment.\n\n" +
        "Exit codes: 0 ok, 1 a failure, 2 a usage or configuration error. --debug (or POSTERN_DEBUG=1) prints " +
        "stack traces.",
    )
    .version(packageVersion(), "-V, --version", "print the version (also -v)")
    .option("--debug", "print stack traces for errors (also POSTERN_DEBUG=1)");

  registerStartCommand(program);
  registerDevCommands(program);
  registerCheckCommand(program);
  registerRunsCommands(program);
  registerSendCommand(program);
  registerOutboundCommands(program);
  registerConsoleCommands(program);
  registerAdminCommands(program);
  registerDoctorCommand(program);
  registerCatalogCommands(program);
  registerWebhooksCommands(program);
  registerSecretsCommands(program);
  return program;
}

/** Every command in the tree, parents before children. */
export function allCommands(root: Command): Command[] {
  return [root, ...root.commands.flatMap((c) => allCommands(c))];
}

/** `postern runs list`: the words that invoke `cmd`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}
