/**
 * One line of the doctor's report. Every finding carries its fix, so an operator reading a `FAIL` knows the
 * next command; `skipped` says what would make the check run.
 */
export type DoctorCheck =
  | { readonly check: string; readonly status: "ok"; readonly detail: string }
  | {
      readonly check: string;
      readonly status: "fail" | "warn" | "skipped";
      readonly detail: string;
      readonly fix: string;
    };

export type Status = DoctorCheck["status"];

export const ok = (check: string, detail: string): DoctorCheck => ({ check, status: "ok", detail });
export const fail = (check: string, detail: string, fix: string): DoctorCheck => ({
  check,
  status: "fail",
  detail,
  fix,
});
export const warn = (check: string, detail: string, fix: string): DoctorCheck => ({
  check,
  status: "warn",
  detail,
  fix,
});
export const skipped = (check: string, detail: string, fix: string): DoctorCheck => ({
  check,
  status: "skipped",
  detail,
  fix,
});

/** What a resource-level check says before the first deploy (no resources file). */
export const notDeployed = (check: string): DoctorCheck =>
  skipped(
    check,
    "needs the deployed stack",
    "after `npx cdk deploy`, save the PosternResources output and run `postern doctor --resources FILE`",
  );

const MARK = { ok: "ok  ", fail: "FAIL", warn: "warn", skipped: "skip" } as const;

export function formatReport(checks: readonly DoctorCheck[]): string {
  return checks
    .map((c) => {
      const line = `${MARK[c.status]}  ${c.check.padEnd(30)} ${c.detail}`;
      return c.status === "ok" ? line : `${line}\n      fix: ${c.fix}`;
    })
    .join("\n");
}
