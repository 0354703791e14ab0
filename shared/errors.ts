/**
 * The one error base class (vercel/ai packages/provider: a marker and `isInstance` on errors). Expected failures
 * are values (`Fail` in result.ts); what throws is a bug, a misconfiguration, or a dependency that broke its
 * contract, and each carries one of these stable codes so a log search, an alarm or a caller can tell them apart
 * without parsing the message.
 *
 * `isInstance` checks a global-symbol marker rather than `instanceof`: two copies of this module (a bundled
 * function and its tests, the CLI and a loaded tool) still recognise each other's errors.
 */
export type ErrorCode =
  /** The deployment, the environment or a file an operator wrote is wrong: fixed by changing it, not by retrying. */
  | "misconfigured"
  /** A definition in code (a tool, a resolver, a fence, a pattern) breaks its rules: caught at load time. */
  | "definition-invalid"
  /** The caller broke a precondition of this function: a bug in the caller. */
  | "invalid-argument"
  /** Something this code wrote or relies on is not as it left it (a record vanished, a state it never writes). */
  | "invariant-broken"
  /** A record the work needs is not there (yet): retrying the delivery may find it. */
  | "record-missing"
  /** A conditional write lost more races than it retries: retrying the delivery may win. */
  | "write-contended"
  /** A dependency (AWS, a library, a classifier) answered outside its contract. */
  | "dependency-failed"
  /** The CLI was called wrongly, or a command met an expected failure (cli/errors.ts maps these to exit codes). */
  | "usage"
  | "command-failed";

const MARKER = Symbol.for("postern.error");

export class PosternError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** True for any PosternError (or subclass), even one made by another copy of this module. */
  static isInstance(error: unknown): error is PosternError {
    return typeof error === "object" && error !== null && (error as { [MARKER]?: unknown })[MARKER] === true;
  }

  /** Whether retrying the same work (a redelivery) may succeed: the rule written once, not re-derived by callers. */
  get isRetryable(): boolean {
    return (
      this.code === "record-missing" || this.code === "write-contended" || this.code === "dependency-failed"
    );
  }
}
