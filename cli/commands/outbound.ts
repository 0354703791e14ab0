import { type Command, Option } from "commander";
import type { OutboundFlags } from "./outbound-actions.ts";

export function registerOutboundCommands(program: Command): void {
  program
    .command("outbound")
    .description("outbound mail state")
    .command("unknown")
    .description(
      "sends whose outcome is uncertain (crash after SES accepted, before it was recorded): check, never re-sent",
    )
    .addOption(new Option("--target <where>", "local (default) or aws").choices(["local", "aws"]))
    .option("--resources <file>", "AWS resource names as JSON (the stack outputs)")
    .option("--json", "JSON output")
    .action(async (o: OutboundFlags) => {
      const { outboundUnknown } = await import("./outbound-actions.ts");
      process.exitCode = await outboundUnknown(o);
    });
}
