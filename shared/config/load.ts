import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { z } from "zod";
import { PosternError } from "../errors.ts";
import { type DeploymentConfig, deploymentConfig } from "./schema.ts";

/** A config that failed validation: every problem names its field and how to fix it. */
export class ConfigError extends PosternError {
  /** The file (or what stands for it) the problems are in. */
  readonly source: string;
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super("misconfigured", `${source} is invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
    this.source = source;
    this.problems = problems;
  }
}

/** A loaded config, with the directory its relative paths (model scripts) resolve against. */
export interface LoadedConfig {
  readonly config: DeploymentConfig;
  readonly baseDir: string;
}

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const field = issue.path.length === 0 ? "(top level)" : issue.path.map(String).join(".");
    return `${field}: ${issue.message}`;
  });
}

/** Validate an already-parsed object; `source` names it in errors. */
export function parseConfig(raw: unknown, source = "postern.config.json"): DeploymentConfig {
  const result = deploymentConfig.safeParse(raw);
  if (!result.success) throw new ConfigError(source, formatIssues(result.error.issues));
  return result.data;
}

export function loadConfigFile(path: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(path, [
      `cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    ]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(path, [jsonProblem((err as Error).message)]);
  }
  return { config: parseConfig(raw, path), baseDir: dirname(resolve(path)) };
}

/**
 * V8's `Expected ',' ... in JSON at position 45 (line 4 column 9)` → `line 4 column 9: not valid JSON (Expected ',' ...)`:
 * where to look first, since that is what the operator does with it.
 */
function jsonProblem(message: string): string {
  const at = /^(.*?) in JSON at position \d+ \((line \d+ column \d+)\)$/.exec(message);
  return at ? `${at[2]}: not valid JSON (${at[1]})` : `not valid JSON: ${message}`;
}

/** Paths inside the config (e.g. a scripted model's `script`) are relative to the config file. */
export function resolveConfigPath(loaded: LoadedConfig, path: string): string {
  return isAbsolute(path) ? path : resolve(loaded.baseDir, path);
}
