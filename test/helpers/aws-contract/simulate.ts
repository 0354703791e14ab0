// AWS's policy evaluation logic, not ours: @cloud-copilot/iam-simulate (AGPL-3.0, a test-only devDependency,
// never bundled into a function) evaluates identity and resource policies as IAM does (explicit deny, allow,
// conditions, same- and cross-account rules, service principals against resource policies).

import { runSimulation } from "@cloud-copilot/iam-simulate";
import type { PolicyDocument } from "./deployed-template.ts";
import type { IamRequest } from "./iam-requests.ts";

export type Verdict = "Allowed" | "ImplicitlyDenied" | "ExplicitlyDenied" | `error: ${string}`;

export interface Principal {
  /** A role ARN, or a service principal such as `ses.amazonaws.com`. */
  readonly arn: string;
  readonly identityPolicies: readonly { name: string; policy: PolicyDocument }[];
}

/** Context every request over HTTPS from inside AWS carries. */
const BASE_CONTEXT = { "aws:SecureTransport": "true" };

export async function simulate(
  principal: Principal,
  request: IamRequest,
  opts: { resourceAccount: string; resourcePolicy?: PolicyDocument | undefined },
): Promise<Verdict> {
  const response = await runSimulation(
    {
      request: {
        principal: principal.arn,
        action: request.action,
        resource: { resource: request.resource, accountId: opts.resourceAccount },
        contextVariables: { ...BASE_CONTEXT, ...request.context },
      },
      identityPolicies: principal.identityPolicies.map((p) => ({ name: p.name, policy: p.policy })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(opts.resourcePolicy ? { resourcePolicy: opts.resourcePolicy } : {}),
    },
    {},
  );
  if (response.resultType === "error") return `error: ${JSON.stringify(response.errors).slice(0, 400)}`;
  return response.overallResult as Verdict;
}
