import type { Command } from "commander";
import { portNumber, waitSeconds } from "../options.ts";
import type { DevKeysFlags, DevSendFlags } from "./dev-actions.ts";

export function registerDevCommands(program: Command): void {
  const dev = program
    .command("dev")
    .summary("dev helpers: DKIM keys for test domains, signed test mail")
    .description("Development helpers for the local stack: DKIM keys for test domains, signed test mail.");

  dev
    .command("keys")
    .summary("make (or show) a DKIM key for a test domain")
    .description(
      "Make (or show) a DKIM signing key for a test domain: the private key goes to " +
        "<dir>/keys/<domain>.<selector>.pem and its public record to <selector>._domainkey.<domain> in the " +
        "local zone file <dir>/dns.json.",
    )
    .requiredOption("--domain <domain>", "signing domain (d=)")
    // No commander default: the dev-key module (and the config schema it loads) stays out of `--help`.
    .option("--selector <selector>", 'selector (s=); default "postern"')
    .option("--dir <dir>", "state directory", ".postern")
    .action(async (o: DevKeysFlags) => {
      const { devKeys } = await import("./dev-actions.ts");
      devKeys(o);
    });

  dev
    .command("send")
    .summary("sign and send a test mail to the local SMTP intake")
    .description(
      "Compose a mail (or take --file), DKIM-sign it with the dev key of the From domain (made on first use) " +
        "and send it over SMTP to the local intake. Prints the Message-ID and the inbound object key, then, " +
        "once each agent's reply is in the outbox, its run id and the reply's file.",
    )
    .requiredOption("--from <address>", "envelope sender and From header")
    .requiredOption("--to <address...>", "envelope recipients (and To header when composing)")
    .option("--subject <text>", "Subject")
    .option("--body <text>", "plain-text body")
    .option("--file <eml>", "send this raw message instead of composing one (it is signed as is)")
    .option("--port <port>", "SMTP port (default: the running stack's, else 2525)", portNumber)
    .option("--host <host>", "SMTP host", "127.0.0.1")
    .option("--dir <dir>", "state directory", ".postern")
    .option(
      "--wait <seconds>",
      "wait this long for each agent's reply in the outbox, then print its run id and reply file (0: do not wait)",
      waitSeconds,
      20,
    )
    .action(async (o: DevSendFlags) => {
      // Loaded on use: mailauth and nodemailer are not needed for --help.
      const { devSendCommand } = await import("./dev-actions.ts");
      await devSendCommand(o);
    });
}
