/**
 * The one logging interface every core, adapter and handler takes: Powertools' Logger satisfies it
 * (shared/runtime/logger.ts wraps one), tests pass test/fakes/recording-logger.ts. Kept here, at the bottom of the
 * import graph, so nothing depends on a logging library to log.
 */
export interface Logger {
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

/** A logger that can carry keys for the record at hand (a Lambda handler's correlation ids). */
export interface KeyedLogger extends Logger {
  appendKeys(keys: Record<string, string>): void;
  removeKeys(keys: string[]): void;
}

/** For a caller with nothing to log to (one-off scripts); invalid items still fail closed. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
