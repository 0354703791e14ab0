import { Aws, CfnRule, Fn, type Stack, Token } from "aws-cdk-lib";

/** AWS's list of the endpoints SES receives mail on, one per region (what the stack's MX output points at). */
export const SES_RECEIVING_DOC =
  "https://docs.aws.amazon.com/general/latest/gr/ses.html#ses_inbound_endpoints";

/**
 * The AWS Regions where SES receives email: the "Email receiving endpoints" table of AWS's "Amazon Simple Email
 * Service endpoints and quotas" page (SES_RECEIVING_DOC). Checked 2026-11-30: the copy of that table at hand was
 * the 2024 one (11 regions); the regions added since are where CloudFormation now registers AWS::SES::ReceiptRule
 * (cfn-lint 1.51's region schemas), a type it does not register where SES sends but does not receive (GovCloud,
 * China, eu-central-2, ap-south-2, ...). test/infra/cfn-lint.test.ts lints the stack in each of them. Anywhere
 * else the receipt rule fails mid-deploy, after the retained bucket and tables exist.
 */
export const SES_RECEIVING_REGIONS = [
  "af-south-1",
  "ap-northeast-1",
  "ap-northeast-2",
  "ap-northeast-3",
  "ap-south-1",
  "ap-southeast-1",
  "ap-southeast-2",
  "ap-southeast-3",
  "ca-central-1",
  "eu-central-1",
  "eu-north-1",
  "eu-south-1",
  "eu-west-1",
  "eu-west-2",
  "eu-west-3",
  "il-central-1",
  "me-south-1",
  "sa-east-1",
  "us-east-1",
  "us-east-2",
  "us-west-1",
  "us-west-2",
] as const;

const SUPPORTED = `deploy to one of ${SES_RECEIVING_REGIONS.join(", ")} (${SES_RECEIVING_DOC})`;

/** Why Postern cannot run in this region, or undefined when SES receives mail there. */
export function sesReceivingProblem(region: string): string | undefined {
  if ((SES_RECEIVING_REGIONS as readonly string[]).includes(region)) return undefined;
  return `region ${region}: SES does not receive email there, so no mail could reach Postern; ${SUPPORTED}`;
}

/**
 * An environment-agnostic stack learns its region only at deploy time: a template Rule makes CloudFormation
 * refuse the stack in a region without SES receiving before it creates any resource (nothing left to clean up).
 */
export function requireSesReceivingRegion(stack: Stack): void {
  if (!Token.isUnresolved(stack.region)) return;
  new CfnRule(stack, "SesReceivingRegion", {
    assertions: [
      {
        assert: Fn.conditionContains([...SES_RECEIVING_REGIONS], Aws.REGION),
        assertDescription: `Postern needs SES email receiving in the stack's region: ${SUPPORTED}`,
      },
    ],
  });
}
