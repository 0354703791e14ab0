import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { DEFAULT_SELECTOR, ensureDevKey } from "../local/dev-keys.ts";
import { liveStackFile } from "../local/stack-file.ts";

/** As cli/local/smtp-intake.ts; repeated so this module does not load smtp-server. */
const DEFAULT_SMTP_PORT = 2525;

const REASONS: Record<string, string> = {
  "invalid-domain": "the domain must be a lower-case domain name (A-label), e.g. sender.example.com",
  "invalid-selector": "the selector must be one DNS label ([a-z0-9-])",
  "invalid-from": "--from must be an address like you@sender.example.com",
};

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
    .option("--selector <selector>", "selector (s=)", DEFAULT_SELECTOR)
    .option("--dir <dir>", "state directory", ".postern")
    .action((o: { domain: string; selector: string; dir: string }) => {
      const dir = resolve(o.dir);
      const r = ensureDevKey(dir, join(dir, "dns.json"), o.domain, o.selector);
      if (!r.ok) return fail(r.reason);
      console.log(`${r.created ? "created" : "kept existing"} key ${r.key.keyPath}`);
      console.log(
        `zone record ${r.key.dnsName} TXT "${r.key.record.slice(0, 60)}..." in ${join(dir, "dns.json")}`,
      );
    });

  dev
    .command("send")
    .summary("sign and send a test mail to the local SMTP intake")
    .description(
      "Compose a mail (or take --file), DKIM-sign it with the dev key of the From domain (made on first use) " +
        "and send it over SMTP to the local intake. Prints the Message-ID and the inbound object key.",
    )
    .requiredOption("--from <address>", "envelope sender and From header")
    .requiredOption("--to <address...>", "envelope recipients (and To header when composing)")
    .option("--subject <text>", "Subject")
    .option("--body <text>", "plain-text body")
    .option("--file <eml>", "send this raw message instead of composing one (it is signed as is)")
    .option("--port <port>", "SMTP port (default: the running stack's, else 2525)")
    .option("--host <host>", "SMTP host", "127.0.0.1")
    .option("--dir <dir>", "state directory", ".postern")
    .action(async (o: DevSendFlags) => {
      const dir = resolve(o.dir);
      // Loaded on use: mailauth and nodemailer are not needed for --help or `dev keys`.
      const { devSend } = await import("../local/dev-send.ts");
      const stack = liveStackFile(join(dir, "stack.json"));
      const r = await devSend({
        dir,
        zoneFile: stack?.zoneFile ?? join(dir, "dns.json"),
        from: o.from,
        to: o.to,
        ...(o.subject !== undefined ? { subject: o.subject } : {}),
        ...(o.body !== undefined ? { body: o.body } : {}),
        ...(o.file !== undefined ? { raw: readFileSync(o.file) } : {}),
        host: o.host,
        port: o.port !== undefined ? Number(o.port) : (stack?.smtp.port ?? DEFAULT_SMTP_PORT),
      });
      if (!r.ok) return fail(r.reason);
      if (r.keyCreated) console.log(`created DKIM key ${r.key.keyPath} (${r.key.dnsName} in the zone file)`);
      console.log(`sent, signed d=${r.key.domain} s=${r.key.selector}`);
      if (r.messageId) console.log(`Message-ID: ${r.messageId}`);
      if (r.sesMessageId) console.log(`stored as inbound/${r.sesMessageId}`);
      console.log(`saved a copy as ${relative(process.cwd(), r.savedAs)}`);
    });
}

interface DevSendFlags {
  from: string;
  to: string[];
  subject?: string;
  body?: string;
  file?: string;
  port?: string;
  host: string;
  dir: string;
}

function fail(reason: string): void {
  console.error(`postern: ${reason}: ${REASONS[reason] ?? ""}`);
  process.exitCode = 2;
}
