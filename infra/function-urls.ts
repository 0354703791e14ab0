import { Aws, CfnRule, Fn, type Stack, Token } from "aws-cdk-lib";
import { PosternError } from "../shared/errors.ts";

/** AWS's page on Lambda function URLs, whose first note lists the Regions without them. */
export const FUNCTION_URLS_DOC = "https://docs.aws.amazon.com/lambda/latest/dg/urls-configuration.html";

/**
 * The AWS Regions where Lambda has no function URLs: the note at the top of "Creating and managing Lambda function
 * URLs" (FUNCTION_URLS_DOC), checked 2026-12-01. The console is served by a function URL, so a console-enabled stack
 * there would fail at its AWS::Lambda::Url, after the retained tables, buckets, keys and user pool exist. Of these,
 * SES receives mail only in il-central-1 (infra/ses-receiving.ts); test/infra/cfn-lint.test.ts checks this list
 * against cfn-lint's region schemas in every SES receiving region.
 */
export const NO_FUNCTION_URL_REGIONS = [
  "ap-east-2",
  "ap-south-2",
  "ap-southeast-4",
  "ap-southeast-5",
  "ap-southeast-6",
  "ap-southeast-7",
  "ca-west-1",
  "eu-central-2",
  "eu-south-2",
  "il-central-1",
  "me-central-1",
] as const;

/** Why the console cannot be deployed in this region, or undefined when Lambda has function URLs there. */
export function consoleRegionProblem(region: string): string | undefined {
  if (!(NO_FUNCTION_URL_REGIONS as readonly string[]).includes(region)) return undefined;
  return (
    `console.enabled: region ${region} has no Lambda function URLs (${FUNCTION_URLS_DOC}), which serve the ` +
    `console; set "console": {"enabled": false} for this region (the CLI works without it), or deploy to another one`
  );
}

/**
 * A console-enabled stack that learns its region only at deploy time: a template Rule makes CloudFormation refuse
 * it in a region without function URLs before it creates any resource. A known region is checked at synth instead.
 */
export function requireFunctionUrlRegion(stack: Stack): void {
  if (!Token.isUnresolved(stack.region)) {
    const problem = consoleRegionProblem(stack.region);
    if (problem) throw new PosternError("misconfigured", problem);
    return;
  }
  new CfnRule(stack, "ConsoleFunctionUrlRegion", {
    assertions: [
      {
        assert: Fn.conditionNot(Fn.conditionContains([...NO_FUNCTION_URL_REGIONS], Aws.REGION)),
        assertDescription: `The Postern console is served by a Lambda function URL, which this region does not offer (${FUNCTION_URLS_DOC}): deploy with "console": {"enabled": false} here, or to another region`,
      },
    ],
  });
}
