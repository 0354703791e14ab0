import type { EvaluationResult } from "@aws-sdk/client-iam";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, notDeployed, ok, skipped } from "./report.ts";
import { EXPLICIT_DENY_FIX, refusals, roleOwner, simulate } from "./simulate.ts";

/** SESv2 SendEmail with raw content is authorised as both actions on the identity and the configuration set. */
export const SEND_ACTIONS = ["ses:SendRawEmail", "ses:SendEmail"] as const;

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
  const who = role ? roleOwner(role) : null;
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
    let results: EvaluationResult[];
    try {
      results = await simulate(ports.iam, role, SEND_ACTIONS, resources, [
        {
          ContextKeyName: "ses:FromAddress",
          ContextKeyValues: [`postern-doctor@${domain}`],
          ContextKeyType: "string",
        },
      ]);
    } catch (err) {
      if (isError(err, "NoSuchEntityException"))
        out.push(
          fail(check, `no role ${role}`, "check that the resources file belongs to the deployed stack"),
        );
      else out.push(callFailed(check, "iam:SimulatePrincipalPolicy", err));
      continue;
    }
    const refused = refusals(results, SEND_ACTIONS);
    if (refused.length === 0)
      out.push(ok(check, `${SEND_ACTIONS.join(", ")} allowed on ${resources.length} resource(s)`));
    else
      out.push(
        fail(
          check,
          `the outbound role may not send as ${domain}: ${refused.join("; ")}`,
          refused.some((r) => r.endsWith("explicitDeny"))
            ? EXPLICIT_DENY_FIX
            : `deploy the current stack (it grants ${SEND_ACTIONS.join(" and ")} on the identities and the configuration set)`,
        ),
      );
  }
  return out;
}
