import { PosternError } from "../errors.ts";
import { type LoadedConfig, loadConfigFile, parseConfig } from "./load.ts";

export const CONFIG_ENV = { file: "POSTERN_CONFIG_FILE", json: "POSTERN_CONFIG" } as const;

let cached: LoadedConfig | undefined;

/**
 * The deployment config inside a function: the file CDK ships in the bundle (POSTERN_CONFIG_FILE), or a JSON
 * document in POSTERN_CONFIG. Validated once per process; an invalid config throws at cold start, loudly.
 */
export function loadRuntimeConfig(env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  if (cached) return cached;
  const file = env[CONFIG_ENV.file];
  if (file) {
    cached = loadConfigFile(file);
  } else if (env[CONFIG_ENV.json]) {
    cached = {
      config: parseConfig(JSON.parse(env[CONFIG_ENV.json] as string), CONFIG_ENV.json),
      baseDir: process.cwd(),
    };
  } else {
    throw new PosternError(
      "misconfigured",
      `no deployment config: set ${CONFIG_ENV.file} or ${CONFIG_ENV.json}`,
    );
  }
  return cached;
}
