import { type DoctorCheck, fail } from "./report.ts";

/** Programmer errors are bugs and are rethrown; anything else a call raises (service, network, credentials) is an answer. */
const BUGS = new Set(["TypeError", "ReferenceError", "SyntaxError", "RangeError"]);

export const errName = (err: unknown): string => (err instanceof Error ? err.name : String(err));

export function isBug(err: unknown): boolean {
  return err instanceof Error && BUGS.has(err.name);
}

/** The SDK's error name matches one of `names` (service exceptions are matched by name, as the SDK docs advise). */
export function isError(err: unknown, ...names: string[]): boolean {
  return err instanceof Error && names.includes(err.name);
}

function fixFor(name: string, action: string): string {
  if (/AccessDenied|AuthorizationError|UnauthorizedOperation|NotAuthorized|Forbidden/i.test(name))
    return `allow ${action} to the identity running the doctor (or run it with the identity that deploys)`;
  if (/Credentials|ExpiredToken|InvalidClientTokenId|UnrecognizedClient|SignatureDoesNotMatch/.test(name))
    return "configure AWS credentials for the account (AWS_PROFILE, `aws sso login`), then run the doctor again";
  if (/Throttl|TooManyRequests|RequestLimitExceeded/.test(name))
    return "AWS throttled the call: run the doctor again in a minute";
  return "check AWS_REGION and the credentials, then run the doctor again; the error above names the cause";
}

/**
 * A call that failed with an error the check does not expect: a failed check naming the call and the error, never a
 * throw (the doctor reports; it does not stop at the first AWS answer). Bugs are rethrown.
 */
export function callFailed(check: string, action: string, err: unknown): DoctorCheck {
  if (isBug(err)) throw err;
  const name = errName(err);
  const message = err instanceof Error && err.message && err.message !== name ? `: ${err.message}` : "";
  return fail(check, `${action} failed (${name}${message})`, fixFor(name, action));
}
