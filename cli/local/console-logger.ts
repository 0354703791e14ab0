import type { KeyedLogger } from "../../shared/logger.ts";

/**
 * The local stack's stand-in for the functions' structured logs: one readable line per entry on stderr, with the
 * same fields (and correlation keys) the Lambda logs carry.
 */
export function consoleFunctionLogger(
  service: string,
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): KeyedLogger {
  const keys: Record<string, string> = {};
  const at =
    (level: string) =>
    (message: string, extra?: Record<string, unknown>): void => {
      const fields = { ...keys, ...(extra ?? {}) };
      const tail = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : "";
      write(`[${service}] ${level} ${message}${tail}`);
    };
  return {
    debug: () => {},
    info: at("INFO"),
    warn: at("WARN"),
    error: at("ERROR"),
    appendKeys: (k) => void Object.assign(keys, k),
    removeKeys: (names) => {
      for (const n of names) delete keys[n];
    },
  };
}
