import { PosternError } from "../../shared/errors.ts";

/**
 * What a stubbed-out module does when something calls it anyway: record the call (a caller may swallow the error,
 * as libmime's charset decoding does) and throw an error that names the stub. The bundle tests read the record to
 * prove, over the corpora, that a stub is never called (test/infra/verify-bundle.test.ts).
 */

const CALLS = Symbol.for("postern.bundle-stub-calls");

type WithCalls = { [CALLS]?: string[] };

export function unreachable(what: string, why: string): never {
  const g = globalThis as WithCalls;
  g[CALLS] ??= [];
  g[CALLS].push(what);
  throw new PosternError(
    "invariant-broken",
    `${what} is stubbed out of this function's bundle (${why}); see infra/bundling.ts`,
  );
}

/** Every stub call in this process so far, in order. */
export function stubCalls(): readonly string[] {
  return [...((globalThis as WithCalls)[CALLS] ?? [])];
}
