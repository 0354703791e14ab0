import type { KeyedLogger } from "../../shared/logger.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface LogLine {
  readonly level: LogLevel;
  readonly message: string;
  readonly extra?: Record<string, unknown>;
  /** The persistent keys (appendKeys) in force when the line was written; absent when there were none. */
  readonly keys?: Record<string, string>;
}

/** One logger for every test: satisfies the cores' Logger, the stores' Logger and the handlers' KeyedLogger. */
export interface RecordingLogger extends KeyedLogger {
  readonly lines: LogLine[];
  /**
   * `level message`, then the keys and the extra fields as JSON when there are any (`fields: false` leaves them
   * out): for assertions on text.
   */
  text(opts?: { readonly fields?: boolean }): string[];
  /** The messages written at `level` (every level when absent). */
  messages(level?: LogLevel): string[];
}

/**
 * Keeps every line it is given, with the Powertools-style persistent keys of the moment (vercel/ai's
 * MockLanguageModel is the model: one recorder per interface, reused by every test).
 */
export function recordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  const keys = new Map<string, string>();
  const at = (level: LogLevel) => (message: string, extra?: Record<string, unknown>) => {
    lines.push({
      level,
      message,
      ...(extra ? { extra } : {}),
      ...(keys.size > 0 ? { keys: Object.fromEntries(keys) } : {}),
    });
  };
  return {
    lines,
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    appendKeys(k) {
      for (const [key, value] of Object.entries(k)) keys.set(key, value);
    },
    removeKeys(ks) {
      for (const key of ks) keys.delete(key);
    },
    text: (opts = {}) =>
      lines.map((l) => {
        const fields = opts.fields === false ? {} : { ...l.keys, ...l.extra };
        return `${l.level} ${l.message}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ""}`;
      }),
    messages: (level) => lines.filter((l) => level === undefined || l.level === level).map((l) => l.message),
  };
}
