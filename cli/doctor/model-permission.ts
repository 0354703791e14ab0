import { GetInferenceProfileCommand } from "@aws-sdk/client-bedrock";
import { ACTIONS } from "../../infra/iam/actions.ts";
import { classifyModelId } from "./bedrock-models.ts";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, notDeployed, skipped } from "./report.ts";
import { roleMay, roleOwner } from "./simulate.ts";

const GRANT_FIX =
  "deploy the current stack with this catalog: it grants agent-step bedrock:InvokeModel on the catalog's models " +
  "(a profile, and its model in every region the profile routes to)";

/**
 * agent-step's role may invoke each Bedrock model of the catalog, as Bedrock authorises the call: a cross-region
 * inference profile needs bedrock:InvokeModel on the profile AND on the foundation model in each destination region
 * the profile routes to (Bedrock user guide, "Prerequisites for inference profiles"); a foundation model needs it on
 * the model in its region. The routes are the profile's own (`GetInferenceProfile` `models[].modelArn`), so an SCP
 * that denies one of those regions shows here, not at the first mail. Converse is authorised as InvokeModel.
 */
export async function checkModelPermission(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const models = ctx.config.models.filter((m) => m.provider === "bedrock");
  if (models.length === 0) return [];
  if (!ctx.resources) return [notDeployed("model invoke")];
  const role = ctx.resources.roles?.agentStep;
  const who = role ? roleOwner(role) : null;
  if (!role || !who)
    return [
      skipped(
        "model invoke",
        role ? `cannot read the account from ${role}` : "the resources file has no roles.agentStep",
        "save the PosternResources output of the current stack again (older stacks did not include it)",
      ),
    ];
  const out: DoctorCheck[] = [];
  for (const m of models) {
    const check = `model invoke ${m.id}`;
    const region = m.region ?? ctx.region;
    const target = classifyModelId(m.modelId);
    let resources: string[];
    if (target.kind === "other") resources = [m.modelId];
    else if (target.kind === "foundation")
      resources = [`arn:${who.partition}:bedrock:${region}::foundation-model/${target.id}`];
    else {
      const profileArn = target.id.startsWith("arn:")
        ? target.id
        : `arn:${who.partition}:bedrock:${region}:${who.account}:inference-profile/${target.id}`;
      let routes: string[];
      try {
        routes = await profileRoutes(ports, region, target.id);
      } catch (err) {
        // A profile Bedrock does not know is `model <id>`'s finding; anything else is this check's.
        out.push(
          isError(err, "ResourceNotFoundException", "ValidationException")
            ? skipped(
                check,
                `Bedrock knows no profile ${target.id} in ${region}`,
                `fix \`model ${m.id}\` first, then run the doctor again`,
              )
            : callFailed(check, "bedrock:GetInferenceProfile", err),
        );
        continue;
      }
      if (routes.length === 0) {
        out.push(
          skipped(
            check,
            `Bedrock lists no region ${target.id} routes to`,
            `fix \`model ${m.id}\` first, then run the doctor again`,
          ),
        );
        continue;
      }
      resources = [profileArn, ...routes];
    }
    out.push(await roleMay(ports, check, role, ACTIONS.modelInvoke, resources, GRANT_FIX));
  }
  return out;
}

/** The foundation-model ARNs a profile routes to (GetInferenceProfile `models[].modelArn`). */
async function profileRoutes(ports: DoctorPorts, region: string, id: string): Promise<string[]> {
  const p = await ports
    .bedrock(region)
    .send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: id }));
  return (p.models ?? []).flatMap((r) => (r.modelArn ? [r.modelArn] : []));
}
