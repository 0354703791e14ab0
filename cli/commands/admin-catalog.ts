import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { type AdminCatalog, adminCatalog, runningConfigCite } from "../../shared/admin/index.ts";
import {
  ConfigError,
  changedConfigFiles,
  type DeploymentConfig,
  loadConfigFile,
} from "../../shared/config/index.ts";
import { grantableNames } from "../../tools/index.ts";
import { CommandFailure } from "../errors.ts";
import { ensureDemoFiles } from "../local/demo.ts";
import type { Target } from "../target.ts";

/**
 * Which deployment config an admin write is checked against: `--config`, else the config the running
 * local stack recorded in stack.json, else (AWS) `postern.deploy.json` here, the config deploys read, or (locally)
 * `postern.config.json` here, else the demo config `npm start` uses without one. AWS has no demo: a write there
 * without a config is refused, never checked against nothing, nor against the local stack's config.
 */
export interface CatalogOptions {
  readonly config?: string;
  readonly target: Pick<Target, "kind" | "configFile" | "runningConfig">;
  readonly dataDir?: string;
  /** Default the working directory. */
  readonly cwd?: string;
}

export function configFileFor(opts: CatalogOptions): string {
  if (opts.config) return opts.cwd ? resolve(opts.cwd, opts.config) : opts.config;
  if (opts.target.configFile) return opts.target.configFile;
  const here = (name: string) => (opts.cwd ? join(opts.cwd, name) : name);
  if (opts.target.kind === "aws") {
    if (existsSync(here("postern.deploy.json"))) return here("postern.deploy.json");
    throw new CommandFailure(
      "admin writes are checked against the deployment config (its domains, models and limits): run this where " +
        "postern.deploy.json is, or pass --config FILE",
    );
  }
  if (existsSync(here("postern.config.json"))) return here("postern.config.json");
  // The stack's directory holds the demo config (`npm start` writes it there without postern.config.json).
  return ensureDemoFiles(dirname(resolve(opts.cwd ?? ".", opts.dataDir ?? join(".postern", "data"))));
}

/** The catalog from that config and every tool and resolver this build registers. */
export function catalogFromFile(path: string): AdminCatalog {
  try {
    return adminCatalog(loadConfigFile(path).config, grantableNames());
  } catch (err) {
    if (err instanceof ConfigError) throw new CommandFailure(err.message);
    throw err;
  }
}

/**
 * What an admin write is checked against. A running local stack runs the config it loaded at start, whatever its
 * file says now: its writes are checked against that config (recorded in stack.json), and a refusal says when the
 * file on disk differs, so an operator who edited it learns to restart instead of being sent to a file that
 * already lists the domain. `--config` and the other targets read the file, as before.
 */
export function catalogFor(opts: CatalogOptions): AdminCatalog {
  const running = opts.target.runningConfig;
  if (!opts.config && running)
    return runningCatalog(running, opts.target.configFile, resolve(opts.cwd ?? ".", "postern.config.json"));
  return catalogFromFile(configFileFor(opts));
}

/** The running stack's config, and which config files on disk (its own, and postern.config.json here) differ. */
export function runningCatalog(
  config: DeploymentConfig,
  configFile: string | undefined,
  here: string = resolve("postern.config.json"),
): AdminCatalog {
  const shown = (f: string) => relative(process.cwd(), f) || f;
  const files = [configFile, here].filter((f): f is string => f !== undefined);
  const changed = changedConfigFiles(config, files).map(shown);
  return adminCatalog(
    config,
    grantableNames(),
    runningConfigCite(configFile ? shown(configFile) : undefined, changed),
  );
}
