import type { FailureReport, FailureSink } from "../../shared/ports/failures.ts";

/** The failure port (G19) as a recorder: what each core reported, in order: one recorder per port, reused by every test. */
export function recordingFailures(): FailureSink & { readonly reports: FailureReport[] } {
  const reports: FailureReport[] = [];
  return {
    reports,
    async report(f) {
      reports.push(f);
    },
  };
}
