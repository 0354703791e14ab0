import type { Command, CommanderError } from "commander";
import { PosternError } from "../shared/errors.ts";
import type { AdminIo } from "./commands/admin-io.ts";
import { debugRequested, describeError, EXIT_USAGE } from "./errors.ts";
import { allCommands, buildProgram, commandPath } from "./program.ts";

/** A parse error of one command (unknown option, missing argument, bad number), with the command it belongs to. */
class ParseError extends PosternError {
  readonly command: Command;
  readonly parse: CommanderError;
  constructor(command: Command, parse: CommanderError) {
    super("usage", parse.message);
    this.command = command;
    this.parse = parse;
  }
}

export interface RunCliOptions {
  readonly io?: AdminIo;
  readonly env?: NodeJS.ProcessEnv;
  /** The program to run; default the whole CLI (tests hand in a tree with a command of their own). */
  readonly program?: Command;
}

const processIo: AdminIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/**
 * Run `postern` with `argv` (without node and the script) and return the exit code. The one place an error becomes
 * output (clig.dev): a usage error is one line with the command's own usage and exits 2; an expected failure is
 * one line that names the cause and the fix and exits 1 (or 2 for configuration); anything else is one line too,
 * with the stack only under --debug or POSTERN_DEBUG=1. A command that sets `process.exitCode` keeps it.
 */
/**
 * `postern -v` is `postern --version`, as most tools take it (commander gives a version option one short flag,
 * and `-V` is kept for whoever learnt it). Only as the whole first word: no command here takes a `-v` of its own.
 */
export function versionAlias(argv: readonly string[]): string[] {
  return argv[0] === "-v" ? ["--version", ...argv.slice(1)] : [...argv];
}

export async function runCli(argv: readonly string[], opts: RunCliOptions = {}): Promise<number> {
  const io = opts.io ?? processIo;
  const debug = debugRequested(argv, opts.env);
  const program = opts.program ?? buildProgram();
  for (const cmd of allCommands(program)) {
    cmd.exitOverride((err) => {
      throw new ParseError(cmd, err);
    });
    // Commander's own error output (and its help after it) is replaced by one line below.
    cmd.configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s), outputError: () => {} });
    cmd.showHelpAfterError(false);
  }
  let current: Command = program;
  program.hook("preAction", (_root, action) => {
    current = action;
  });
  try {
    await program.parseAsync(versionAlias(argv), { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof ParseError) return parseFailure(err, io);
    const e = describeError(err);
    io.err(
      `${commandPath(current)}: ${e.line}${e.expected || debug ? "" : " (a bug? --debug prints the stack)"}\n`,
    );
    if (debug && err instanceof Error && err.stack) io.err(`${err.stack}\n`);
    return e.exitCode;
  }
}

function parseFailure(err: ParseError, io: AdminIo): number {
  const { parse: cause, command } = err;
  // --help and --version end the parse too, with exit code 0; a group called without its subcommand has
  // already printed its help (to stderr): that is the usage.
  if (cause.exitCode === 0) return 0;
  if (cause.code === "commander.help") return EXIT_USAGE;
  const path = commandPath(command);
  const message = cause.message.replace(/^error: /, "").replace(/\s+/g, " ");
  io.err(`${path}: ${message} (usage: ${path} ${command.usage()}; see ${path} --help)\n`);
  return EXIT_USAGE;
}
