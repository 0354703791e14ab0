import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type AdminCatalog, adminCatalog } from "../../shared/admin/index.ts";
import { ConfigError, loadConfigFile } from "../../shared/config/index.ts";
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
export function configFileFor(opts: {
  readonly config?: string;
  readonly target: Pick<Target, "kind" | "configFile">;
  readonly dataDir?: string;
  /** Default the working directory. */
  readonly cwd?: string;
}): string {
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
