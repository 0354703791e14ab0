import { cfnLintOnPath, cfnLintPolicy } from "./cfn-lint-policy.ts";

/**
 * The infra project's global setup: when cfn-lint is missing on a developer's machine, one line at the end of the run
 * says the CloudFormation lint was skipped and how to install it (test/infra/cfn-lint.test.ts fails instead in CI).
 */
export default function setup(): (() => void) | undefined {
  const policy = cfnLintPolicy(process.env, cfnLintOnPath());
  if (policy.kind !== "skip") return undefined;
  return () => console.warn(`\n\u26a0 ${policy.message}\n`);
}
