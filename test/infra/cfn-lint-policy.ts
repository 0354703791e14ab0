import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * Whether the infra tests run AWS's CloudFormation linter (cfn-lint, a Python tool). A JavaScript developer's machine
 * may lack it: there every other test runs and one line says the lint was skipped and how to install it. CI must
 * not pass without it: with `CI` set (as `.ci/run` sets it) or `POSTERN_REQUIRE_CFN_LINT=1`, its absence fails.
 */
export type CfnLintPolicy =
  | { readonly kind: "run" }
  | { readonly kind: "skip"; readonly message: string }
  | { readonly kind: "fail"; readonly message: string };

export const CFN_LINT_VERSION = "1.51.0";
const install = `pip install cfn-lint==${CFN_LINT_VERSION}`;

const truthy = (v: string | undefined) =>
  v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";

export function cfnLintPolicy(env: NodeJS.ProcessEnv, installed: boolean): CfnLintPolicy {
  if (installed) return { kind: "run" };
  if (truthy(env.CI) || truthy(env.POSTERN_REQUIRE_CFN_LINT))
    return {
      kind: "fail",
      message: `cfn-lint is not on the PATH, and CI requires it: ${install}, then run the tests again.`,
    };
  return {
    kind: "skip",
    message: `cfn-lint is not on the PATH: the CloudFormation lint of the synthesized templates was skipped (every other test ran). Install it with \`${install}\`; CI requires it.`,
  };
}

/** An executable `cfn-lint` on the PATH (found without starting it: its start-up takes a second or two). */
export function cfnLintOnPath(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir || ".", "cfn-lint"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
