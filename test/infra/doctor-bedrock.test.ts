import {
  AccessDeniedException,
  GetFoundationModelAvailabilityCommand,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
  type InferenceType,
  ListInferenceProfilesCommand,
  ResourceNotFoundException,
  ValidationException,
} from "@aws-sdk/client-bedrock";
import { describe, expect, it } from "vitest";
import { checkBedrockModels, classifyModelId } from "../../cli/doctor/bedrock-models.ts";
import { parseConfig } from "../../shared/config/load.ts";
import { type Answer, beforeDeploy, fakePorts, fixOf, META, only, when } from "./doctor-fakes.ts";

const SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0";
/** A model Bedrock serves only through inference profiles, whose plain id the config schema does not refuse. */
const PLAIN = "amazon.nova-premier-v1:0";
const catalog = (modelId: string, region?: string) =>
  parseConfig({
    domains: ["agents.example.com"],
    models: [{ id: "m", provider: "bedrock", modelId, egress: "internal", ...(region ? { region } : {}) }],
  });
const run = (modelId: string, bedrock: Answer[] = [], region?: string) => {
  const ports = fakePorts({ bedrock });
  return { ports, checks: checkBedrockModels(beforeDeploy({ config: catalog(modelId, region) }), ports) };
};

/** The service lists Claude 4.x as reachable only through profiles: no ON_DEMAND among its inference types. */
const profileOnly = (types: InferenceType[]) =>
  when(GetFoundationModelCommand).reply((input) => ({
    ...META,
    modelDetails: {
      modelArn: `arn:aws:bedrock:eu-west-1::foundation-model/${input.modelIdentifier}`,
      modelId: input.modelIdentifier,
      providerName: "Anthropic",
      inferenceTypesSupported: types,
      modelLifecycle: { status: "ACTIVE" },
    },
  }));
const profilesListing = when(ListInferenceProfilesCommand).reply(() => ({
  ...META,
  inferenceProfileSummaries: ["global", "us", "eu"].map((geo) => ({
    inferenceProfileName: `${geo} Nova Premier`,
    inferenceProfileArn: `arn:aws:bedrock:eu-west-1:111111111111:inference-profile/${geo}.${PLAIN}`,
    inferenceProfileId: `${geo}.${PLAIN}`,
    models: [{ modelArn: `arn:aws:bedrock:eu-west-1::foundation-model/${PLAIN}` }],
    status: "ACTIVE" as const,
    type: "SYSTEM_DEFINED" as const,
  })),
}));
const error = { $metadata: { httpStatusCode: 400 } };

describe("doctor: Bedrock models of the catalog", () => {
  it("classifies ids: geographic profile prefixes and profile ARNs are profiles, the rest foundation models", () => {
    expect(classifyModelId(`eu.${SONNET}`)).toEqual({ kind: "profile", id: `eu.${SONNET}` });
    expect(classifyModelId(`global.${SONNET}`).kind).toBe("profile");
    expect(
      classifyModelId("arn:aws:bedrock:eu-west-1:111111111111:application-inference-profile/abc").kind,
    ).toBe("profile");
    expect(classifyModelId(`arn:aws:bedrock:eu-west-1::foundation-model/${SONNET}`)).toEqual({
      kind: "foundation",
      id: SONNET,
    });
    expect(classifyModelId("amazon.nova-pro-v1:0")).toEqual({
      kind: "foundation",
      id: "amazon.nova-pro-v1:0",
    });
    expect(classifyModelId("arn:aws:bedrock:eu-west-1:111111111111:provisioned-model/x")).toEqual({
      kind: "other",
      type: "provisioned-model",
    });
  });

  it("an inference profile id: ok, and access is checked on the model it routes to", async () => {
    const { ports, checks } = run(`eu.${SONNET}`);
    expect(await checks).toEqual([
      {
        check: "model m",
        status: "ok",
        detail: `inference profile eu.${SONNET} (SYSTEM_DEFINED, 2 route(s))`,
      },
      { check: "model access m", status: "ok", detail: `${SONNET}: AUTHORIZED, AVAILABLE` },
    ]);
    expect(ports.calls.bedrock).toEqual([
      { command: "GetInferenceProfileCommand", input: { inferenceProfileIdentifier: `eu.${SONNET}` } },
      // the profile's lifecycle is the model's: Bedrock answers it for the foundation model
      { command: "GetFoundationModelCommand", input: { modelIdentifier: SONNET } },
      { command: "GetFoundationModelAvailabilityCommand", input: { modelId: SONNET } },
    ]);
  });

  it("a plain model id Bedrock serves only through profiles: fails, fix names this geography's profile id", async () => {
    // The config refuses plain Claude 3.7+ ids at synth; the doctor asks Bedrock, so it catches every other model
    // (and a config loaded without that rule) too.
    const { checks } = run(PLAIN, [profileOnly(["INFERENCE_PROFILE" as InferenceType]), profilesListing]);
    const c = only(await checks, "model m");
    expect(c.status).toBe("fail");
    expect(c.detail).toBe(
      `${PLAIN} cannot be invoked by its model id on demand: Bedrock serves it only through an inference profile`,
    );
    expect(fixOf(c)).toBe(
      `use the inference profile id: set "modelId": "eu.${PLAIN}" in the catalog entry and deploy again ` +
        `(profiles here: eu.${PLAIN}, global.${PLAIN}, us.${PLAIN})`,
    );
  });

  it("the same without the right to list profiles: the fix still says to use the profile id", async () => {
    const denied = new AccessDeniedException({
      message: "not authorized: bedrock:ListInferenceProfiles",
      ...error,
    });
    const { checks } = run(PLAIN, [profileOnly([]), when(ListInferenceProfilesCommand).throws(denied)]);
    expect(fixOf(only(await checks, "model m"))).toMatch(
      /^use the inference profile id: .*"us\.amazon\.nova-premier/,
    );
  });

  it("an on-demand foundation model: ok; a LEGACY one fails with its end of life, naming the current model", async () => {
    expect(only(await run("amazon.nova-pro-v1:0").checks, "model m")).toMatchObject({ status: "ok" });
    const legacy = when(GetFoundationModelCommand).reply((input) => ({
      ...META,
      modelDetails: {
        modelArn: `arn:aws:bedrock:eu-west-1::foundation-model/${input.modelIdentifier}`,
        modelId: input.modelIdentifier,
        inferenceTypesSupported: ["ON_DEMAND"],
        modelLifecycle: { status: "LEGACY", endOfLifeTime: new Date("2026-09-01T00:00:00Z") },
      },
    }));
    const c = only(await run("anthropic.claude-3-haiku-20240307-v1:0", [legacy]).checks, "model m");
    expect(c).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /LEGACY, end of life 2026-09-01: Bedrock does not serve Legacy models to new/,
      ),
    });
    expect(fixOf(c)).toMatch(/"modelId": "global\.anthropic\.claude-sonnet-4-6"/);
    // through a profile too: the profile is ACTIVE, the model it routes to is not
    const viaProfile = only(await run(`global.${SONNET}`, [legacy]).checks, "model m");
    expect(viaProfile).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/^anthropic\.claude-sonnet-4-5-20250929-v1:0 is LEGACY/),
    });
    expect(fixOf(viaProfile)).toMatch(/retired from the Claude API on 2026-11-30, and Legacy on Bedrock/);
  });

  it("an unknown foundation model (ResourceNotFoundException): fails, fix lists the models of the region", async () => {
    const missing = new ResourceNotFoundException({ message: "The specified model was not found", ...error });
    const { checks } = run("anthropic.claude-9", [when(GetFoundationModelCommand).throws(missing)]);
    const all = await checks;
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      status: "fail",
      detail: "no foundation model anthropic.claude-9 in eu-west-1",
    });
    expect(fixOf(all[0])).toMatch(/aws bedrock list-foundation-models --region eu-west-1/);
  });

  it("an unknown profile (ValidationException): fails, fix lists the profiles of the region", async () => {
    const invalid = new ValidationException({
      message: "The provided model identifier is invalid.",
      ...error,
    });
    const c = only(
      await run(`apac.${SONNET}`, [when(GetInferenceProfileCommand).throws(invalid)]).checks,
      "model m",
    );
    expect(c).toMatchObject({ status: "fail", detail: `no inference profile apac.${SONNET} in eu-west-1` });
    expect(fixOf(c)).toMatch(/aws bedrock list-inference-profiles --region eu-west-1/);
  });

  it("GetInferenceProfile denied: a failed check naming the permission", async () => {
    const denied = new AccessDeniedException({ message: "not authorized", ...error });
    const c = only(
      await run(`eu.${SONNET}`, [when(GetInferenceProfileCommand).throws(denied)]).checks,
      "model m",
    );
    expect(c.status).toBe("fail");
    expect(fixOf(c)).toMatch(/^allow bedrock:GetInferenceProfile to the identity running the doctor/);
  });

  it("no access to the model (use case not submitted): fails, fix opens the model in the console", async () => {
    const noAccess = when(GetFoundationModelAvailabilityCommand).reply((input) => ({
      ...META,
      modelId: input.modelId,
      agreementAvailability: { status: "NOT_AVAILABLE" },
      authorizationStatus: "NOT_AUTHORIZED",
      entitlementAvailability: "NOT_AVAILABLE",
      regionAvailability: "AVAILABLE",
    }));
    const c = only(await run(`eu.${SONNET}`, [noAccess]).checks, "model access m");
    expect(c.status).toBe("fail");
    expect(fixOf(c)).toMatch(
      /Model catalog → the model\); Anthropic models ask a first-time account for its use case/,
    );
  });

  it("a model not offered in the region fails; a Marketplace agreement in ERROR warns", async () => {
    const availability = (over: { region?: "NOT_AVAILABLE"; agreement?: "ERROR" }) =>
      when(GetFoundationModelAvailabilityCommand).reply((input) => ({
        ...META,
        modelId: input.modelId,
        agreementAvailability: { status: over.agreement ?? "AVAILABLE", errorMessage: "offer expired" },
        authorizationStatus: "AUTHORIZED",
        entitlementAvailability: "AVAILABLE",
        regionAvailability: over.region ?? "AVAILABLE",
      }));
    const region = only(
      await run(`eu.${SONNET}`, [availability({ region: "NOT_AVAILABLE" })]).checks,
      "model access m",
    );
    expect(region).toMatchObject({ status: "fail", detail: `${SONNET} is not offered in eu-west-1` });
    const agreement = only(
      await run(`eu.${SONNET}`, [availability({ agreement: "ERROR" })]).checks,
      "model access m",
    );
    expect(agreement).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/ERROR: offer expired/),
    });
    expect(fixOf(agreement)).toMatch(/accept its offer again/);
  });

  it("asks Bedrock in the entry's own region; skips ARNs it cannot check; ignores other providers", async () => {
    const { ports, checks } = run(`us.${SONNET}`, [], "us-east-1");
    await checks;
    expect(ports.bedrockRegions).toEqual(["us-east-1"]);
    const other = only(
      await run("arn:aws:bedrock:eu-west-1:111111111111:provisioned-model/x").checks,
      "model m",
    );
    expect(other).toMatchObject({ status: "skipped" });
    const none = parseConfig({
      domains: ["agents.example.com"],
      models: [{ id: "s", provider: "scripted", script: "demo.json", egress: "internal" }],
    });
    expect(await checkBedrockModels(beforeDeploy({ config: none }), fakePorts())).toEqual([]);
  });
});
