import { join, resolve } from "node:path";
import type { Command } from "commander";
import { LINK_TTL_SECONDS, mintLinkToken } from "../../console/auth/link-token.ts";
import { GROUPS } from "../../console/auth/principal.ts";
import { readConsoleFile } from "../local/console-file.ts";
import { liveStackFile } from "../local/stack-file.ts";
import { type AdminIo, processIo } from "./admin-io.ts";

export interface ConsoleLinkArgs {
  readonly dir?: string;
  readonly email?: string;
  readonly viewer?: boolean;
}

/**
 * `postern console link`: a fresh one-time sign-in link for the running local stack's console, signed with the key
 * the stack wrote to `<dir>/console.json`. Nothing is sent to the stack: the console checks the link when it is
 * opened (signature, 10 minutes, once).
 */
export function consoleLink(args: ConsoleLinkArgs, io: AdminIo = processIo, now = new Date()): number {
  const dir = resolve(args.dir ?? ".postern");
  const stack = liveStackFile(join(dir, "stack.json"));
  const file = readConsoleFile(join(dir, "console.json"));
  if (!stack || !file || file.pid !== stack.pid) {
    io.err(
      `postern console link: no local console is running in ${dir}; start one with \`npm start\` (without --no-console)\n`,
    );
    return 1;
  }
  const email = (args.email ?? file.email).trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
    io.err(
      `postern console link: --email must be an address like you@example.com, got ${JSON.stringify(email)}\n`,
    );
    return 2;
  }
  const groups = [args.viewer ? GROUPS.viewers : GROUPS.admins];
  const token = mintLinkToken(
    Buffer.from(file.linkKey, "base64url"),
    { email, groups },
    now.getTime() + LINK_TTL_SECONDS * 1000,
  );
  io.out(`${file.url}/auth/local?token=${token}\n`);
  io.err(`signs in ${email} (${groups[0]}) once, within 10 minutes\n`);
  return 0;
}

export function registerConsoleCommands(program: Command): void {
  const c = program.command("console").description("the local operator console (`npm start` serves it)");
  c.command("link")
    .description(
      "print a fresh one-time sign-in link for the running local console (works once, for 10 minutes)",
    )
    .option("--email <address>", "sign in as this address (default: the stack's --console-email)")
    .option("--viewer", "sign in in the viewers group instead of admins")
    .option("--dir <dir>", "state directory", ".postern")
    .action((o: ConsoleLinkArgs) => {
      process.exitCode = consoleLink(o);
    });
}
