import { afterEach, describe, expect, it, vi } from "vitest";
import { failureFilterPattern } from "../../infra/constructs/operations.ts";
import { FAILURE_CLASSES, logFailure } from "../../shared/ports/failures.ts";
import { makeLogger } from "../../shared/runtime/logger.ts";

/**
 * CloudWatch's JSON filter patterns, the one form the failure metrics use: `{ (<sel> = "<v>") && (<sel> = "<v>") }`
 * with `$.<field>` selectors on top-level fields (CloudWatch Logs "Filter pattern syntax": JSON terms, `&&`).
 * Anything else throws: a pattern this cannot read is not silently counted as matching.
 */
function matches(pattern: string, line: Record<string, unknown>): boolean {
  const body = /^\{\s*(.*)\s*\}$/.exec(pattern.trim())?.[1];
  if (body === undefined) throw new Error(`not a JSON filter pattern: ${pattern}`);
  return body.split("&&").every((term) => {
    const m = /^\(?\s*\$\.([A-Za-z0-9_]+)\s*=\s*"([^"]*)"\s*\)?$/.exec(term.trim());
    if (!m) throw new Error(`unsupported term: ${term}`);
    return line[m[1] as string] === m[2];
  });
}

/** What the real (Powertools) logger writes for one failure, as Lambda hands it to CloudWatch Logs. */
function writtenLine(cls: (typeof FAILURE_CLASSES)[number]): Record<string, unknown> {
  const out: string[] = [];
  const capture = (chunk: unknown) => {
    out.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, "write").mockImplementation(capture);
  vi.spyOn(process.stderr, "write").mockImplementation(capture);
  logFailure(makeLogger("outbound"), {
    class: cls,
    reason: "ses-rejected:MessageRejected",
    detail: "Email address is not verified.",
    agent: "helpdesk@agents.example.com",
    runId: "run-1",
  });
  vi.restoreAllMocks();
  const line = out.join("").trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as Record<string, unknown>;
}

afterEach(() => vi.restoreAllMocks());

describe("G19: the failure metrics count the line the code writes", () => {
  it("each class's filter matches its own line and no other class's", () => {
    for (const cls of FAILURE_CLASSES) {
      const pattern = failureFilterPattern(cls).logPatternString;
      for (const other of FAILURE_CLASSES)
        expect(matches(pattern, writtenLine(other)), `${cls} vs ${other}`).toBe(cls === other);
    }
  });

  it("a line that is not the failure line is not counted", () => {
    const line = { ...writtenLine("send-failed"), message: "outbound: request refused" };
    expect(matches(failureFilterPattern("send-failed").logPatternString, line)).toBe(false);
  });
});
