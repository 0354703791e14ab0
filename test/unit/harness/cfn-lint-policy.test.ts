import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CFN_LINT_VERSION, cfnLintOnPath, cfnLintPolicy } from "../../infra/cfn-lint-policy.ts";

/** cfn-lint: optional on a developer's machine (reported), required in CI (fails), and .ci/run requires it. */
const ROOT = join(import.meta.dirname, "../../..");

describe("whether the infra tests run cfn-lint", () => {
  it("runs it wherever it is installed", () => {
    expect(cfnLintPolicy({}, true)).toEqual({ kind: "run" });
    expect(cfnLintPolicy({ CI: "true" }, true)).toEqual({ kind: "run" });
  });

  it("reports the lint as skipped on a developer's machine without it, saying how to install it", () => {
    for (const env of [{}, { CI: "" }, { CI: "false" }, { CI: "0" }]) {
      const policy = cfnLintPolicy(env, false);
      expect(policy.kind).toBe("skip");
      expect("message" in policy && policy.message).toMatch(/skipped.*pip install cfn-lint==1\.51\.0/);
    }
  });

  it("fails without it in CI, or wherever POSTERN_REQUIRE_CFN_LINT is set", () => {
    for (const env of [{ CI: "true" }, { CI: "1" }, { POSTERN_REQUIRE_CFN_LINT: "1" }]) {
      const policy = cfnLintPolicy(env, false);
      expect(policy.kind).toBe("fail");
      expect("message" in policy && policy.message).toContain(`pip install cfn-lint==${CFN_LINT_VERSION}`);
    }
  });

  it("finds cfn-lint on the PATH without running it", () => {
    expect(cfnLintOnPath({ PATH: "" })).toBe(false);
    expect(cfnLintOnPath({ PATH: join(ROOT, "test") })).toBe(false);
  });

  it("is required by .ci/run before anything is installed, with CI set for the tests", () => {
    const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
    const check = ci.indexOf("command -v cfn-lint");
    expect(check).toBeGreaterThan(0);
    expect(check).toBeLessThan(ci.indexOf("npm ci"));
    expect(ci).toMatch(/export CI="\$\{CI:-true\}" POSTERN_REQUIRE_CFN_LINT=1/);
  });
});
