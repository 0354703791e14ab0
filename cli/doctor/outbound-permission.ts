import { type EvaluationResult, SimulatePrincipalPolicyCommand } from "@aws-sdk/client-iam";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, notDeployed, ok, skipped } from "./report.ts";

/** SESv2 SendEmail with raw content is authorised as both actions on the identity and the configuration set. */
export const SEND_ACTIONS = ["ses:SendRawEmail", "ses:SendEmail"] as const;

/** `arn:aws:iam::111111111111:role/x` → partition and account. */
function owner(roleArn: string): { partition: string; account: string } | null {
  const m = /^arn:(aws[a-z-]*):iam::(\d{12}):role\//.exec(roleArn);
  return m?.[1] && m[2] ? { partition: m[1], account: m[2] } : null;
}

/** Each (action, resource) the simulation did not allow, as "action on resource: decision". */
function refusals(results: readonly EvaluationResult[]): string[] {
  const out: string[] = [];
  for (const action of SEND_ACTIONS) {
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

/**
 * The outbound role may send as each domain: IAM's policy simulator, on the identity (and the configuration set)
 * ARNs, with `ses:FromAddress` set to an address at the domain. Simulation covers identity policies, boundaries and
 * SCPs; it cannot see an SES sending-authorization policy (not used: the identities are in this account).
 */
export async function checkOutboundPermission(
  ctx: DoctorContext,
  ports: DoctorPorts,
): Promise<DoctorCheck[]> {
  if (!ctx.resources) return [notDeployed("outbound send")];
  const role = ctx.resources.roles?.outbound;
  const who = role ? owner(role) : null;
  if (!role || !who)
    return [
      skipped(
        "outbound send",
        role ? `cannot read the account from ${role}` : "the resources file has no roles.outbound",
        "save the PosternResources output of the current stack again (older stacks did not include it)",
      ),
    ];
  const arn = (resource: string) => `arn:${who.partition}:ses:${ctx.region}:${who.account}:${resource}`;
  const configSet = ctx.resources.configurationSet;
  const out: DoctorCheck[] = [];
  for (const domain of ctx.config.domains) {
    const check = `outbound send ${domain}`;
    const resources = [
      arn(`identity/${domain}`),
      ...(configSet ? [arn(`configuration-set/${configSet}`)] : []),
    ];
    const results: EvaluationResult[] = [];
    try {
      let Marker: string | undefined;
      for (let page = 0; page < 10; page++) {
        const r = await ports.iam.send(
          new SimulatePrincipalPolicyCommand({
            PolicySourceArn: role,
            ActionNames: [...SEND_ACTIONS],
            ResourceArns: resources,
            ContextEntries: [
              {
                ContextKeyName: "ses:FromAddress",
                ContextKeyValues: [`postern-doctor@${domain}`],
                ContextKeyType: "string",
              },
            ],
            Marker,
          }),
        );
        results.push(...(r.EvaluationResults ?? []));
        Marker = r.IsTruncated ? r.Marker : undefined;
        if (!Marker) break;
      }
    } catch (err) {
      if (isError(err, "NoSuchEntityException"))
        out.push(
          fail(check, `no role ${role}`, "check that the resources file belongs to the deployed stack"),
        );
      else out.push(callFailed(check, "iam:SimulatePrincipalPolicy", err));
      continue;
    }
    const refused = refusals(results);
    if (refused.length === 0)
      out.push(ok(check, `${SEND_ACTIONS.join(", ")} allowed on ${resources.length} resource(s)`));
    else
      out.push(
        fail(
          check,
          `the outbound role may not send as ${domain}: ${refused.join("; ")}`,
          refused.some((r) => r.endsWith("explicitDeny"))
            ? "an explicit Deny (SCP, permissions boundary or policy) blocks it: find it with the IAM policy simulator and lift it for this role"
            : `deploy the current stack (it grants ${SEND_ACTIONS.join(" and ")} on the identities and the configuration set)`,
        ),
      );
  }
  return out;
}
