import type { Command } from "commander";
import type { CheckArgs } from "./check-actions.ts";

export function registerCheckCommand(program: Command): void {
  program
    .command("check <message>")
    .summary(
      "run the inbound gate on one .eml file (or a stored mail's id) and print the verdict (JSON; --show: for a person)",
    )
    .description(
      "Run the inbound gate (routing, limits, loop guard, DKIM sender proof, access control) on MESSAGE (an .eml " +
        "file, `-` for stdin, or the id of a mail the local stack stored, e.g. from a refusal) for one " +
        "envelope recipient and print {verdict, reason[, detail], sender, agent, notify[, signedHeaders, addressing, provenBy]} as JSON; " +
        "with --show, the verdict as lines and then exactly what the model would be given (or the refusal line) as " +
        "plain text (--show --json: the JSON with `shown`). Without --config/--admin/--dns " +
        "it reads the local stack's state. Exit 0 for any verdict; 2 for usage or config errors.",
    )
    .requiredOption("--rcpt <address>", "envelope recipient (the agent address)")
    .option("--config <file>", "deployment config (default postern.config.json, else the local demo config)")
    .option("--admin <file>", "admin document JSON (default: the local stack's admin tables)")
    .option("--dns <zone.json>", "DNS zone file in mailauth resolver shape (default .postern/dns.json)")
    .option("--now <iso>", "fix the clock (ISO-8601), e.g. for signatures with x= expiry")
    .option("--mail-from <address>", "envelope MAIL FROM; `<>` for a bounce")
    .option(
      "--show",
      "print for a person: the verdict, then exactly what the model would be given, or the refusal line",
    )
    .option("--json", "with --show: one JSON object, `shown` as a string field")
    .action(async (message: string, o: CheckArgs) => {
      const { runCheck } = await import("./check-actions.ts");
      process.exitCode = await runCheck(message, o);
    });
}
