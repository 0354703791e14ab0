/** Where a deprecation line goes: Node's own deprecation channel by default (stderr once, `--no-deprecation` mutes). */
export type DeprecationSink = (message: string, type: "DeprecationWarning", code: string) => void;

const warned = new Set<string>();

/**
 * Env-var secret references (`apiKeyEnv`, an MCP credential named by an env var) keep working for one release; each
 * variable's first read in a process logs one line naming the command that moves it into the secrets store.
 */
export function noteEnvReference(
  variable: string,
  sink: DeprecationSink = (m, t, c) => process.emitWarning(m, t, c),
  seen: Set<string> = warned,
): void {
  if (seen.has(variable)) return;
  seen.add(variable);
  sink(
    `secret reference by env var ${variable} is deprecated and goes in the next release; run: postern secrets set postern/<name> (value on stdin), then reference secretsmanager:postern/<name>`,
    "DeprecationWarning",
    "POSTERN_SECRET_ENV",
  );
}
