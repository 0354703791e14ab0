import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SES_RECEIVING_REGIONS } from "../../infra/ses-receiving.ts";
import { CFN_LINT_VERSION, cfnLintOnPath, cfnLintPolicy } from "./cfn-lint-policy.ts";

/**
 * The one source of SES_RECEIVING_REGIONS: the regions where CloudFormation registers AWS::SES::ReceiptRule, as
 * cfn-lint 1.51 ships CloudFormation's per-region resource provider schemas (cfnlint/data/schemas/providers). SES
 * receives mail exactly where it takes receipt rules; the type is absent where SES only sends (eu-central-2,
 * ap-south-2, ...). Other partitions (GovCloud, China, the isolated and sovereign ones) are not Postern's.
 */
const OTHER_PARTITIONS = /^(us-gov-|cn-|us-iso|eu-isoe-|eusc-)/;

function providersDir(): string {
  const r = spawnSync("python3", ["-c", "import cfnlint, os; print(os.path.dirname(cfnlint.__file__))"], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`cfn-lint's package is not importable by python3: ${r.stderr.trim()}`);
  return join(r.stdout.trim(), "data", "schemas", "providers");
}

const lint = cfnLintPolicy(process.env, cfnLintOnPath());
describe("the SES receiving regions", () => {
  if (lint.kind !== "run") {
    it("cfn-lint is missing here: reported, not compared", () => {
      if (lint.kind === "fail") throw new Error(lint.message);
      expect(lint.message).toContain(`pip install cfn-lint==${CFN_LINT_VERSION}`);
    });
    return;
  }
  it("are exactly the commercial regions where CloudFormation registers AWS::SES::ReceiptRule (cfn-lint's schemas)", () => {
    const dir = providersDir();
    const regions = readdirSync(dir)
      .filter((f) => /^[a-z]+(_[a-z]+)+_\d\.py$/.test(f))
      .map((f) => ({
        region: f.slice(0, -3).replaceAll("_", "-"),
        text: readFileSync(join(dir, f), "utf8"),
      }));
    expect(regions.length).toBeGreaterThan(30);
    const receiving = regions
      .filter((r) => !OTHER_PARTITIONS.test(r.region) && r.text.includes('"AWS::SES::ReceiptRule"'))
      .map((r) => r.region)
      .sort();
    expect(receiving).toEqual([...SES_RECEIVING_REGIONS].sort());
  });
});
