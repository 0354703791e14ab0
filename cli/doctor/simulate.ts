import {
  type ContextEntry,
  type EvaluationResult,
  SimulatePrincipalPolicyCommand,
} from "@aws-sdk/client-iam";
import { callFailed, isError } from "./errors.ts";
import type { DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok } from "./report.ts";

/** `arn:aws:iam::111111111111:role/x` → partition and account. */
export function roleOwner(roleArn: string): { partition: string; account: string } | null {
  const m = /^arn:(aws[a-z-]*):iam::(\d{12}):role\//.exec(roleArn);
  return m?.[1] && m[2] ? { partition: m[1], account: m[2] } : null;
}

/**
 * IAM's policy simulator for one role (iam:SimulatePrincipalPolicy, every page). It evaluates the role's identity
 * policies, its permissions boundary and the organization's SCPs; resource policies (a secret's or a key's own
 * policy) are not seen unless passed, so a check built on it says so.
 */
export async function simulate(
  iam: DoctorPorts["iam"],
  role: string,
  actions: readonly string[],
  resources: readonly string[],
  context: readonly ContextEntry[] = [],
): Promise<EvaluationResult[]> {
  const results: EvaluationResult[] = [];
  let Marker: string | undefined;
  for (let page = 0; page < 10; page++) {
    const r = await iam.send(
      new SimulatePrincipalPolicyCommand({
        PolicySourceArn: role,
        ActionNames: [...actions],
        ResourceArns: [...resources],
        ...(context.length > 0 ? { ContextEntries: [...context] } : {}),
        Marker,
      }),
    );
    results.push(...(r.EvaluationResults ?? []));
    Marker = r.IsTruncated ? r.Marker : undefined;
    if (!Marker) break;
  }
  return results;
}

/** Each (action, resource) the simulation did not allow, as "action on resource: decision". */
export function refusals(results: readonly EvaluationResult[], actions: readonly string[]): string[] {
  const out: string[] = [];
  for (const action of actions) {
    const r = results.find((e) => e.EvalActionName === action);
    if (!r) out.push(`${action}: not evaluated`);
    else if (r.ResourceSpecificResults && r.ResourceSpecificResults.length > 0) {
      for (const rr of r.ResourceSpecificResults)
        if (rr.EvalResourceDecision !== "allowed")
          out.push(`${action} on ${rr.EvalResourceName}: ${rr.EvalResourceDecision}`);
    } else if (r.EvalDecision !== "allowed") out.push(`${action}: ${r.EvalDecision}`);
  }
  return out;
}

export const EXPLICIT_DENY_FIX =
  "an explicit Deny (SCP, permissions boundary or policy) blocks it: find it with the IAM policy simulator and lift it for this role";

/**
 * One finding: may `role` make every (action, resource)? `grantedBy` names what in the stack grants it, for the fix.
 * A failed call is a failed check (the doctor reports; it never stops at an AWS answer).
 */
export async function roleMay(
  ports: Pick<DoctorPorts, "iam">,
  check: string,
  role: string,
  actions: readonly string[],
  resources: readonly string[],
  grantedBy: string,
): Promise<DoctorCheck> {
  let results: EvaluationResult[];
  try {
    results = await simulate(ports.iam, role, actions, resources);
  } catch (err) {
    if (isError(err, "NoSuchEntityException"))
      return fail(check, `no role ${role}`, "check that the resources file belongs to the deployed stack");
    return callFailed(check, "iam:SimulatePrincipalPolicy", err);
  }
  const refused = refusals(results, actions);
  if (refused.length === 0)
    return ok(check, `${actions.join(", ")} allowed on ${resources.length} resource(s)`);
  return fail(
    check,
    `${role.split("/").pop()} may not: ${refused.join("; ")}`,
    refused.some((r) => r.endsWith("explicitDeny")) ? EXPLICIT_DENY_FIX : grantedBy,
  );
}
