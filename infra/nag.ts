import { Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
import { PosternError } from "../shared/errors.ts";

/**
 * Acknowledge one cdk-nag AwsSolutions finding on a construct (and its children). `rule` is the id as cdk-nag
 * prints it, suffix included (`AwsSolutions-IAM5[Resource::...]`); the reason is mandatory and must say why the
 * finding is acceptable here, not that it is.
 */
export function acknowledgeNag(scope: IConstruct, rule: string, reason: string): void {
  if (!rule.startsWith("AwsSolutions-"))
    throw new PosternError("invalid-argument", `not an AwsSolutions rule id: ${rule}`);
  if (reason.trim().length < 40)
    throw new PosternError("invalid-argument", `acknowledging ${rule} needs a specific reason`);
  Validations.of(scope).acknowledge({ id: `AwsSolutions::${rule}`, reason });
}
