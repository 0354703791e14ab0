import {
  type BedrockClient,
  type FoundationModelDetails,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
} from "@aws-sdk/client-bedrock";
import { modelFacts, RECOMMENDED } from "../../shared/model/index.ts";
import { modelAccess, profilesFor } from "./bedrock-access.ts";
import { callFailed, isBug, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, skipped } from "./report.ts";

/** Cross-region inference profile prefixes (as in infra/constructs/model-access.ts). */
const PROFILE_PREFIX = /^(us|eu|apac|us-gov|jp|au|ca|global)\./;
const NOT_FOUND = ["ResourceNotFoundException", "ValidationException"];

type Target =
  | { readonly kind: "profile"; readonly id: string }
  | { readonly kind: "foundation"; readonly id: string }
  | { readonly kind: "other"; readonly type: string };

/** What a catalog `modelId` names: an inference profile (id or ARN), a foundation model (id or ARN), or other. */
export function classifyModelId(modelId: string): Target {
  const arn = /^arn:aws[a-z-]*:bedrock:[^:]*:[^:]*:([a-z-]+)\/(.+)$/.exec(modelId);
  if (arn) {
    const [, type = "", rest = ""] = arn;
    if (type === "foundation-model") return { kind: "foundation", id: rest };
    if (type === "inference-profile" || type === "application-inference-profile")
      return { kind: "profile", id: modelId };
    return { kind: "other", type };
  }
  return PROFILE_PREFIX.test(modelId)
    ? { kind: "profile", id: modelId }
    : { kind: "foundation", id: modelId };
}

/**
 * Each Bedrock model of the catalog: it exists in its region, can be invoked the way it is named, is ACTIVE (a
 * LEGACY model is refused to accounts that have not used it: "new customers can't use Legacy models", Bedrock
 * model lifecycle), and is accessible.
 */
export async function checkBedrockModels(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  for (const m of ctx.config.models) {
    if (m.provider !== "bedrock") continue;
    const region = m.region ?? ctx.region;
    const client = ports.bedrock(region);
    const check = `model ${m.id}`;
    const target = classifyModelId(m.modelId);
    if (target.kind === "other") {
      out.push(
        skipped(
          check,
          `${m.modelId}: the doctor does not check ${target.type} ARNs`,
          "check it in the Bedrock console",
        ),
      );
      continue;
    }
    const found =
      target.kind === "profile"
        ? await profile(check, target.id, region, client)
        : await foundation(check, target.id, region, client);
    // A profile answers for its routes, not for the model behind them: its lifecycle is the model's own.
    const checked =
      target.kind === "profile" && found.base && found.check.status === "ok"
        ? ((await lifecycle(check, found.base, region, client)) ?? found.check)
        : found.check;
    out.push(checked);
    if (found.base) out.push(await modelAccess(`model access ${m.id}`, found.base, region, client));
  }
  return out;
}

type Found = { check: DoctorCheck; base?: string };
const baseOf = (arn: string | undefined) => arn?.split("foundation-model/")[1];

async function profile(
  check: string,
  id: string,
  region: string,
  client: Pick<BedrockClient, "send">,
): Promise<Found> {
  try {
    const p = await client.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: id }));
    const models = p.models ?? [];
    const base = baseOf(models[0]?.modelArn);
    if (p.status !== "ACTIVE")
      return { check: fail(check, `inference profile ${id} is ${p.status}`, "use an ACTIVE profile") };
    return {
      check: ok(check, `inference profile ${id} (${p.type}, ${models.length} route(s))`),
      ...(base ? { base } : {}),
    };
  } catch (err) {
    if (!isError(err, ...NOT_FOUND)) return { check: callFailed(check, "bedrock:GetInferenceProfile", err) };
    return {
      check: fail(
        check,
        `no inference profile ${id} in ${region}`,
        `pick one Bedrock offers in ${region}: \`aws bedrock list-inference-profiles --region ${region} --query "inferenceProfileSummaries[].inferenceProfileId"\` ` +
          "(the prefix us./eu./apac./global. must fit the region)",
      ),
    };
  }
}

async function foundation(
  check: string,
  id: string,
  region: string,
  client: Pick<BedrockClient, "send">,
): Promise<Found> {
  let details: FoundationModelDetails | undefined;
  try {
    details = (await client.send(new GetFoundationModelCommand({ modelIdentifier: id }))).modelDetails;
  } catch (err) {
    if (!isError(err, ...NOT_FOUND)) return { check: callFailed(check, "bedrock:GetFoundationModel", err) };
  }
  if (!details)
    return {
      check: fail(
        check,
        `no foundation model ${id} in ${region}`,
        `check the id and the region: \`aws bedrock list-foundation-models --region ${region} --query "modelSummaries[].modelId"\``,
      ),
    };
  if (!(details.inferenceTypesSupported ?? []).includes("ON_DEMAND")) {
    const profiles = await profilesFor(client, id, region).catch((err: unknown) => {
      if (isBug(err)) throw err;
      return [];
    });
    const use = profiles[0]
      ? `"${profiles[0]}"`
      : `the inference profile id (e.g. "us.${id}" or "global.${id}")`;
    const all = profiles.length > 1 ? ` (profiles here: ${profiles.join(", ")})` : "";
    return {
      check: fail(
        check,
        `${id} cannot be invoked by its model id on demand: Bedrock serves it only through an inference profile`,
        `use the inference profile id: set "modelId": ${use} in the catalog entry and deploy again${all}`,
      ),
      base: id,
    };
  }
  return {
    check: notActive(check, id, details) ?? ok(check, `foundation model ${id} (on demand)`),
    base: id,
  };
}

/** The model's lifecycle as Bedrock answers it (GetFoundationModel's `modelLifecycle`): null when ACTIVE. */
async function lifecycle(
  check: string,
  id: string,
  region: string,
  client: Pick<BedrockClient, "send">,
): Promise<DoctorCheck | null> {
  try {
    const details = (await client.send(new GetFoundationModelCommand({ modelIdentifier: id }))).modelDetails;
    if (details) return notActive(check, id, details);
  } catch (err) {
    if (!isError(err, ...NOT_FOUND)) return callFailed(check, "bedrock:GetFoundationModel", err);
  }
  return fail(
    check,
    `Bedrock knows no foundation model ${id} in ${region}, which the profile routes to`,
    `check the id and the region: \`aws bedrock list-foundation-models --region ${region} --query "modelSummaries[].modelId"\``,
  );
}

/**
 * Anything but ACTIVE fails: Bedrock refuses a LEGACY model to an account that has not called it lately, so a
 * first deploy (or a quiet account) would fail every run. The fix names the current model from the facts table.
 */
function notActive(check: string, id: string, details: FoundationModelDetails): DoctorCheck | null {
  const life = details.modelLifecycle;
  if (life === undefined || life.status === "ACTIVE") return null;
  const eol = life.endOfLifeTime ? `, end of life ${life.endOfLifeTime.toISOString().slice(0, 10)}` : "";
  const facts = modelFacts("bedrock", id);
  return fail(
    check,
    `${id} is ${life.status}${eol}: Bedrock does not serve Legacy models to new customers`,
    `move the catalog entry to a current model, e.g. "modelId": "${RECOMMENDED.bedrock}"${facts?.note ? ` (${facts.note})` : ""}, and deploy again`,
  );
}
