import { Command } from "commander";
import { registerCatalogCommands } from "./commands/catalog.ts";
import { registerCheckCommand } from "./commands/check.ts";
import { registerConsoleCommands } from "./commands/console.ts";
import { registerDevCommands } from "./commands/dev.ts";
import { registerOutboundCommands } from "./commands/outbound.ts";
import { registerRunsCommands } from "./commands/runs.ts";
import { registerSendCommand } from "./commands/send.ts";
import { registerStartCommand } from "./commands/start.ts";

/** `postern`: the operator's command line. Each area registers its own commands; this file only lists them. */
const program = new Command("postern")
  .description(
    "Email addresses for AI agents on AWS, behind gates that code enforces.\n\n" +
      "Local: `postern start` runs the whole pipeline on this machine and `postern dev send` mails it.\n" +
      "Admin commands reach the running local stack (.postern/stack.json), or AWS from the usual AWS environment.",
  )
  .showHelpAfterError();

registerStartCommand(program);
registerDevCommands(program);
registerCheckCommand(program);
registerRunsCommands(program);
registerSendCommand(program);
registerOutboundCommands(program);
registerConsoleCommands(program);
// Areas still being written: a missing module leaves the rest of the CLI usable.
await registerOptional("./commands/admin.ts", "registerAdminCommands");
await registerOptional("./commands/doctor.ts", "registerDoctorCommand");
registerCatalogCommands(program);

await program.parseAsync(process.argv);

/**
 * Import `specifier` and call its `register` export with the program. Only a missing module is tolerated; a module
 * that exists but fails to load is a bug, reported on stderr without hiding the other commands.
 */
async function registerOptional(specifier: string, register: string): Promise<void> {
  const url = new URL(specifier, import.meta.url);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url.href)) as Record<string, unknown>;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "ERR_MODULE_NOT_FOUND" && String(e.message).includes(url.pathname)) return;
    console.error(`postern: ${specifier} failed to load: ${e.message}`);
    return;
  }
  const fn = mod[register];
  if (typeof fn === "function") fn(program);
  else console.error(`postern: ${specifier} has no ${register}() export`);
}
