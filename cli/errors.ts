import { PosternError } from "../shared/errors.ts";

/**
 * The CLI's expected failures, and how each becomes one line on stderr (clig.dev: say what went wrong and what to
 * do, no stack trace unless asked). Exit codes: 2 for usage and configuration errors (the invocation or a file
 * must change), 1 for failures (the command was right, the world was not). This module stays free of heavy
 * imports: the top-level handler loads it on every call.
 */

/** A wrong invocation the parser could not catch (conflicting options, bad value): exit code 2. */
export class UsageError extends PosternError {
  override readonly name = "UsageError";
  constructor(message: string) {
    super("usage", message);
  }
}

/** An expected failure (no such agent, invalid document, duplicate): exit code 1, message printed as is. */
export class CommandFailure extends PosternError {
  override readonly name = "CommandFailure";
  constructor(message: string) {
    super("command-failed", message);
  }
}

/** An expected failure of opening a target (bad file, unreachable stack): exit code 1. */
export class TargetError extends PosternError {
  override readonly name = "TargetError";
  constructor(message: string) {
    super("command-failed", message);
  }
}

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export interface ErrorLine {
  /** One line, no trailing newline. */
  readonly line: string;
  readonly exitCode: typeof EXIT_FAILURE | typeof EXIT_USAGE;
  /** False for a bug or an error nobody mapped: the line then says how to see the stack. */
  readonly expected: boolean;
}

/** Node's system errors the CLI meets in ordinary use, each with the fix an operator can act on. */
const SYSTEM_FIXES: Record<
  string,
  (e: NodeJS.ErrnoException & { port?: number; address?: string }) => string
> = {
  EADDRINUSE: (e) =>
    `port ${e.port ?? "?"} is in use; stop the process using it or pass another port (postern start --help lists the port options)`,
  ECONNREFUSED: (e) =>
    `nothing answers at ${e.address ?? "?"}:${e.port ?? "?"}; is the local stack running (npm start)?`,
  ENOENT: (e) => `no such file: ${e.path ?? "?"}`,
  EACCES: (e) => `permission denied: ${e.path ?? (e.port !== undefined ? `port ${e.port}` : "?")}`,
};

/** A ConfigError of shared/config, recognised by shape so this module does not load the config schema (zod). */
function configProblem(err: Error): string | undefined {
  const e = err as Error & { source?: unknown; problems?: unknown };
  if (e.name !== "ConfigError" || !Array.isArray(e.problems)) return undefined;
  const where = typeof e.source === "string" ? e.source : "the config";
  return `${where}: ${e.problems.map(String).join("; ")}`;
}

/** Several lines (a list of problems) read as one: `a:\n  - b\n  - c` → `a: b; c`. */
export function oneLine(text: string): string {
  const [head = "", ...rest] = text
    .split(/\r?\n/)
    .map((l) => l.trim().replace(/^- /, ""))
    .filter((l) => l !== "");
  if (rest.length === 0) return head;
  return `${head}${head.endsWith(":") ? " " : ": "}${rest.join("; ")}`;
}

/** What the top-level handler (and commands that report their own errors) print for `err`. */
export function describeError(err: unknown): ErrorLine {
  if (!(err instanceof Error))
    return { line: `unexpected failure: ${String(err)}`, exitCode: 1, expected: false };
  const config = configProblem(err);
  if (config !== undefined) return { line: oneLine(config), exitCode: EXIT_USAGE, expected: true };
  if (err instanceof UsageError) return { line: oneLine(err.message), exitCode: EXIT_USAGE, expected: true };
  if (err instanceof CommandFailure || err instanceof TargetError)
    return { line: oneLine(err.message), exitCode: EXIT_FAILURE, expected: true };
  // A misconfiguration our own code names (a secrets file others can read, say) carries its fix in the message: the
  // line is that message, not the class name, which says nothing to the operator.
  if (err instanceof PosternError && err.code === "misconfigured")
    return { line: oneLine(err.message), exitCode: EXIT_FAILURE, expected: true };
  const code = (err as NodeJS.ErrnoException).code;
  const fix = code ? SYSTEM_FIXES[code] : undefined;
  if (fix) return { line: fix(err as NodeJS.ErrnoException), exitCode: EXIT_FAILURE, expected: true };
  // AWS SDK errors (no credentials, access denied, throttling) name themselves well enough: name and message.
  if ("$metadata" in err || err.name.endsWith("ProviderError"))
    return { line: oneLine(`${err.name}: ${err.message}`), exitCode: EXIT_FAILURE, expected: true };
  return { line: oneLine(`${err.name}: ${err.message}`), exitCode: EXIT_FAILURE, expected: false };
}

/** `POSTERN_DEBUG=1` or `--debug` anywhere on the command line: print stack traces. */
export function debugRequested(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  return (
    argv.includes("--debug") || (env.POSTERN_DEBUG !== undefined && !/^(0|false|)$/i.test(env.POSTERN_DEBUG))
  );
}
