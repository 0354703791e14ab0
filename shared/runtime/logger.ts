import { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import type { KeyedLogger } from "../logger.ts";

/**
 * Structured JSON logs (Powertools) behind the small Logger interface the cores take, so cores and stores never
 * depend on a logging library and tests can hand in a recorder.
 */
export function makeLogger(serviceName: string): KeyedLogger {
  const pt = new PowertoolsLogger({
    serviceName,
    logLevel: (process.env.POSTERN_LOG_LEVEL as "INFO" | undefined) ?? "INFO",
  });
  const at =
    (level: "debug" | "info" | "warn" | "error") =>
    (message: string, extra?: Record<string, unknown>): void => {
      if (extra) pt[level](message, extra);
      else pt[level](message);
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    appendKeys: (keys) => pt.appendKeys(keys),
    removeKeys: (keys) => pt.removeKeys(keys),
  };
}
