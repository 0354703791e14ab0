import { InvalidArgumentError } from "commander";

/**
 * Parsers for numeric options: a bad number is a usage error (exit 2, the command's usage line), never a silent
 * `NaN` that reads as an empty table (`runs list --limit abc`).
 */
function wholeNumber(min: number, max: number, what: string): (value: string) => number {
  return (value) => {
    const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected ${what}`);
    return n;
  };
}

/** A count: 1 or more. */
export const positiveInt = wholeNumber(1, Number.MAX_SAFE_INTEGER, "a whole number, 1 or more");

/** A TCP port; 0 lets the system choose. */
export const portNumber = wholeNumber(0, 65535, "a port number, 0-65535");

/** Seconds to wait, 0 (do not wait) to 600. */
export const waitSeconds = wholeNumber(0, 600, "a whole number of seconds, 0-600");
