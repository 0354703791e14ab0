import { type Command, Option } from "commander";
import type { SendArgs } from "./send-actions.ts";

export function registerSendCommand(program: Command): void {
  program
    .command("send")
    .description(
      "send mail as an agent (operator mail: From forced to the agent, no hop count); --reply-to MESSAGE_ID continues a stored thread",
    )
    .requiredOption("--from <agent>", "the agent's address")
    .option("--to <a,b>", "recipients (for a reply, added to the reply-all set)")
    .option("--cc <a,b>", "cc recipients")
    .option("--subject <text>", "subject (new mail only; a reply takes the thread's)")
    .requiredOption("--body <text>", "plain-text body")
    .option("--reply-to <messageId>", "mailbox id of a stored inbound message to reply to")
    .option("--config <file>", "deployment config")
    .addOption(new Option("--target <where>", "local (default) or aws").choices(["local", "aws"]))
    .option("--resources <file>", "AWS resource names as JSON (the stack outputs)")
    .action(async (o: SendArgs) => {
      const { runSend } = await import("./send-actions.ts");
      process.exitCode = await runSend(o);
    });
}
