import { Aws, CfnRule, Fn, type Stack, Token } from "aws-cdk-lib";

/** AWS's list of the endpoints SES receives mail on, one per region (what the stack's MX output points at). */
export const SES_RECEIVING_DOC =
  "https://docs.aws.amazon.com/general/latest/gr/ses.html#ses_inbound_endpoints";

/**
 * The AWS Regions where SES receives email, from one source: the commercial regions where CloudFormation registers
 * AWS::SES::ReceiptRule, in the per-region resource provider schemas cfn-lint 1.51 ships (SES takes receipt rules
 * exactly where it receives mail; the type is absent where SES only sends: eu-central-2, ap-south-2, ...).
 * test/infra/ses-receiving-regions.test.ts compares this list with those schemas, and test/infra/cfn-lint.test.ts
 * lints the stack in each region. AWS's "Email receiving endpoints" table (SES_RECEIVING_DOC) is what an operator
 * reads; the copy at hand when this was checked (2026-11-30) was the 2024 one, with 11 regions. Anywhere else the
 * receipt rule fails mid-deploy, after the retained bucket and tables exist.
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
