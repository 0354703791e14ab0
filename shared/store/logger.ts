/**
 * The logging surface the repositories need. Powertools' Logger satisfies it; tests pass a capturing one.
 * Kept minimal so shared/store does not depend on a logging library.
 */
export interface StoreLogger {
  warn(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

/** Used when a caller has nothing to log to (one-off scripts); invalid items still fail closed. */
export const silentLogger: StoreLogger = { warn() {}, info() {}, error() {} };
