import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Stack, Validations } from "aws-cdk-lib";
import { CfnQueue } from "aws-cdk-lib/aws-sqs";
import { AwsSolutionsChecks } from "cdk-nag";
import { describe, expect, it } from "vitest";
import { acknowledgeNag } from "../../infra/nag.ts";
import type { ValidationReport } from "./synth.ts";

// The stack test's "no unacknowledged finding" means something only if cdk-nag runs and acknowledgements are
// matched per rule: this control shows both on a deliberately non-compliant queue.
describe("cdk-nag is live (control)", () => {
  it("reports a queue without DLQ or TLS policy, and an acknowledgement with a reason silences exactly that finding", () => {
    const run = (acknowledge: boolean) => {
      const app = new App({ outdir: mkdtempSync(join(tmpdir(), "postern-nag-")) });
      const stack = new Stack(app, "Control");
      const q = new CfnQueue(stack, "Plain", {});
      if (acknowledge) {
        for (const rule of ["AwsSolutions-SQS3", "AwsSolutions-SQS4"])
          acknowledgeNag(q, rule, "control case for the test: an intentionally non-compliant queue");
      }
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      try {
        app.synth();
        return [];
      } catch {
        const report = JSON.parse(
          readFileSync(join(app.outdir, "validation-report.json"), "utf8"),
        ) as ValidationReport;
        return report.pluginReports.flatMap((r) => r.violations.map((v) => v.ruleName));
      }
    };
    expect(run(false)).toEqual(expect.arrayContaining(["AwsSolutions-SQS3", "AwsSolutions-SQS4"]));
    expect(run(true)).toEqual([]);
  });
});

describe("acknowledgeNag", () => {
  it("refuses an acknowledgement without a specific reason, or of a rule that is not AwsSolutions", () => {
    const q = new CfnQueue(new Stack(new App(), "S"), "Q", {});
    expect(() => acknowledgeNag(q, "AwsSolutions-SQS3", "ok")).toThrow(/needs a specific reason/);
    expect(() => acknowledgeNag(q, "SQS3", "a long enough reason that still names no rule pack")).toThrow(
      /not an AwsSolutions rule id/,
    );
  });
});
