import { existsSync } from "node:fs";
import { ConfigError, loadConfigFile } from "./load.ts";
import type { DeploymentConfig } from "./schema.ts";

/**
 * Which of these config files on disk no longer say what `config` (the config a running stack loaded at start)
 * says: edited since, or no longer loading. A stack keeps running what it loaded; a write checked against it must
 * say so when the file differs, or it sends the operator to a file that already lists what was refused.
 */
export function changedConfigFiles(config: DeploymentConfig, files: readonly string[]): string[] {
  const running = JSON.stringify(config);
  return [...new Set(files)].filter((file) => {
    if (!existsSync(file)) return false;
    try {
      return JSON.stringify(loadConfigFile(file).config) !== running;
    } catch (err) {
      if (err instanceof ConfigError) return true;
      throw err;
    }
  });
}
