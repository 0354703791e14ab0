/**
 * One result shape for expected outcomes (as cloudflare/agents returns `{ valid: false, reason }`). A result is
 * tagged by `ok`. Success spreads its fields next to the tag (`{ ok: true, mailbox }`); a failure carries a stable
 * reason code from its module's union, which operators, notices, traces and tests key on, and optionally a
 * human-readable detail that nothing decides on. Expected failures are values; only bugs and misconfiguration
 * throw, and they throw a PosternError (errors.ts) with a stable code.
 *
 * `X` adds context a caller needs beyond the code (the refused sender's address, a counter's value, whether a
 * model call may be retried); it never replaces `reason` or `detail`.
 */
export type Ok<T extends object = NoFields> = { readonly ok: true } & T;
export type Fail<R extends string, X extends object = NoFields> = {
  readonly ok: false;
  readonly reason: R;
  readonly detail?: string;
} & X;
/** A failure whose detail is always there: where a person or a model reads it (a tool's result, a limit). */
export type FailWithDetail<R extends string, X extends object = NoFields> = Fail<R, X> & {
  readonly detail: string;
};
export type Result<T extends object, R extends string> = Ok<T> | Fail<R>;

type NoFields = Record<never, never>;

/** Success, with its fields beside the tag. */
export function ok(): Ok;
export function ok<T extends object>(fields: T): Ok<T>;
export function ok(fields?: object): Ok<object> {
  return { ok: true, ...fields };
}

/** A failure with a stable reason code; `detail` is only set when given, so the shape stays exact. */
export function fail<R extends string>(reason: R): Fail<R>;
export function fail<R extends string>(reason: R, detail: string): FailWithDetail<R>;
export function fail<R extends string>(reason: R, detail?: string): Fail<R>;
export function fail<R extends string>(reason: R, detail?: string): Fail<R> {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}

/** `reason: detail`, or the bare reason: one line for a log or a trace that predates the split. */
export function failureText(f: { readonly reason: string; readonly detail?: string | undefined }): string {
  return f.detail === undefined ? f.reason : `${f.reason}: ${f.detail}`;
}

/** A failure with context beside its code (a conflicting state, the existing item): `Fail<R, X>` as a value. */
export function failWith<R extends string, X extends object>(reason: R, extra: X): Fail<R, X> {
  return { ok: false, reason, ...extra };
}
