import {
  type BedrockClient,
  GetFoundationModelAvailabilityCommand,
  ListInferenceProfilesCommand,
} from "@aws-sdk/client-bedrock";
import { callFailed, isError } from "./errors.ts";
import { type DoctorCheck, fail, ok, warn } from "./report.ts";

type Bedrock = Pick<BedrockClient, "send">;

const ACCESS_FIX =
  "open the model once in the Bedrock console (Model catalog → the model); Anthropic models ask a first-time " +
  "account for its use case. If that is done, an SCP or permissions boundary may deny it";

/**
 * Can this account use the foundation model? Bedrock enables serverless models by default, except that Anthropic
 * models need the account's use case submitted once, and Marketplace models an agreement.
 */
export async function modelAccess(
  check: string,
  modelId: string,
  region: string,
  client: Bedrock,
): Promise<DoctorCheck> {
  try {
    const a = await client.send(new GetFoundationModelAvailabilityCommand({ modelId }));
    if (a.regionAvailability === "NOT_AVAILABLE")
      return fail(
        check,
        `${modelId} is not offered in ${region}`,
        "use a region that offers it, or its inference profile",
      );
    if (a.authorizationStatus === "NOT_AUTHORIZED" || a.entitlementAvailability === "NOT_AVAILABLE")
      return fail(
        check,
        `this account has no access to ${modelId} (authorization ${a.authorizationStatus}, entitlement ${a.entitlementAvailability})`,
        ACCESS_FIX,
      );
    const agreement = a.agreementAvailability;
    if (agreement?.status === "PENDING" || agreement?.status === "ERROR")
      return warn(
        check,
        `the model's Marketplace agreement is ${agreement.status}${agreement.errorMessage ? `: ${agreement.errorMessage}` : ""}`,
        "Bedrock console → Model catalog → the model: accept its offer again",
      );
    return ok(
      check,
      `${modelId}: ${a.authorizationStatus ?? "AUTHORIZED"}, ${a.entitlementAvailability ?? "AVAILABLE"}`,
    );
  } catch (err) {
    if (isError(err, "ResourceNotFoundException", "ValidationException"))
      return fail(check, `Bedrock knows no model ${modelId} in ${region}`, "check the catalog's modelId");
    return callFailed(check, "bedrock:GetFoundationModelAvailability", err);
  }
}

/** Geography prefix Bedrock uses for cross-region profiles from `region` (us-east-1 → us). */
function geography(region: string): string {
  if (region.startsWith("us-gov-")) return "us-gov";
  if (region.startsWith("ap-")) return "apac";
  return region.split("-")[0] ?? "";
}

/** System-defined inference profiles that route to `modelId`, this region's geography first, then global. */
export async function profilesFor(client: Bedrock, modelId: string, region: string): Promise<string[]> {
  const ids: string[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < 10; page++) {
    const r = await client.send(
      new ListInferenceProfilesCommand({ typeEquals: "SYSTEM_DEFINED", maxResults: 100, nextToken }),
    );
    for (const p of r.inferenceProfileSummaries ?? [])
      if (p.inferenceProfileId && (p.models ?? []).some((m) => m.modelArn?.endsWith(`/${modelId}`)))
        ids.push(p.inferenceProfileId);
    nextToken = r.nextToken;
    if (!nextToken) break;
  }
  const rank = (id: string) =>
    id.startsWith(`${geography(region)}.`) ? 0 : id.startsWith("global.") ? 1 : 2;
  return ids.sort((a, b) => rank(a) - rank(b));
}
