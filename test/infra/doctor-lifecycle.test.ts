import { BedrockClient } from "@aws-sdk/client-bedrock";
import { afterEach, describe, expect, it } from "vitest";
import { checkAnthropicModels } from "../../cli/doctor/anthropic-models.ts";
import { checkBedrockModels } from "../../cli/doctor/bedrock-models.ts";
import { parseConfig } from "../../shared/config/load.ts";
import {
  type RecordedRequest,
  type RecordingServer,
  type Reply,
  startRecordingServer,
} from "../helpers/model-servers/recording-server.ts";
import { beforeDeploy, fakePorts, fixOf, only } from "./doctor-fakes.ts";

// The doctor's lifecycle checks against local servers speaking each service's own wire: Bedrock's control plane
// (restJson1: GET /foundation-models/{id}, /inference-profiles/{id}, /foundation-model-availability/{id}) through
// the real BedrockClient, and the Claude API's Models API (GET /v1/models/{id}) through fetch. The answers are the
// services' documented response shapes, so the parse the checks rely on is the one a real answer gets.

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SONNET_4_5 = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const SONNET_4_6 = "anthropic.claude-sonnet-4-6";

/** GetFoundationModel's response body for `id` in `status` (its timestamps are RFC 3339 date-times). */
function foundationModel(id: string, status: "ACTIVE" | "LEGACY"): Reply {
  return {
    body: {
      modelDetails: {
        modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${id}`,
        modelId: id,
        modelName: id,
        providerName: "Anthropic",
        inputModalities: ["TEXT", "IMAGE"],
        outputModalities: ["TEXT"],
        responseStreamingSupported: true,
        inferenceTypesSupported: ["INFERENCE_PROFILE"],
        modelLifecycle:
          status === "LEGACY"
            ? {
                status,
                startOfLifeTime: "2025-09-29T00:00:00Z",
                legacyTime: "2026-06-01T00:00:00Z",
                endOfLifeTime: "2027-06-01T00:00:00Z",
              }
            : { status, startOfLifeTime: "2026-02-17T00:00:00Z" },
      },
    },
  };
}

/** Bedrock's control plane for one model behind a `global.` profile. */
function bedrockControlPlane(base: string, status: "ACTIVE" | "LEGACY") {
  return (req: RecordedRequest): Reply => {
    const path = decodeURIComponent(req.path);
    if (path.startsWith("/inference-profiles/global."))
      return {
        body: {
          inferenceProfileArn: `arn:aws:bedrock:us-east-1:111111111111:inference-profile/global.${base}`,
          inferenceProfileId: `global.${base}`,
          inferenceProfileName: `Global ${base}`,
          models: [{ modelArn: `arn:aws:bedrock:::foundation-model/${base}` }],
          status: "ACTIVE",
          type: "SYSTEM_DEFINED",
        },
      };
    if (path === `/foundation-models/${base}`) return foundationModel(base, status);
    if (path === `/foundation-model-availability/${base}`)
      return {
        body: {
          modelId: base,
          agreementAvailability: { status: "AVAILABLE" },
          authorizationStatus: "AUTHORIZED",
          entitlementAvailability: "AVAILABLE",
          regionAvailability: "AVAILABLE",
        },
      };
    return {
      status: 404,
      headers: { "x-amzn-errortype": "ResourceNotFoundException" },
      body: { message: "The specified model was not found" },
    };
  };
}

async function bedrockDoctor(modelId: string, base: string, status: "ACTIVE" | "LEGACY") {
  server = await startRecordingServer(bedrockControlPlane(base, status));
  const client = new BedrockClient({
    endpoint: server.url,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
    maxAttempts: 1,
  });
  const config = parseConfig({
    domains: ["agents.example.com"],
    models: [{ id: "claude", provider: "bedrock", modelId, egress: "internal" }],
  });
  const ports = { ...fakePorts(), bedrock: () => client };
  const checks = await checkBedrockModels(beforeDeploy({ config, region: "us-east-1" }), ports);
  return { checks, paths: server.requests.map((r) => decodeURIComponent(r.path)) };
}

describe("doctor: Bedrock's own lifecycle answer", () => {
  it("fails a model Bedrock answers LEGACY, behind an ACTIVE global. profile", async () => {
    const { checks, paths } = await bedrockDoctor(`global.${SONNET_4_5}`, SONNET_4_5, "LEGACY");
    const c = only(checks, "model claude");
    expect(c).toMatchObject({
      status: "fail",
      detail: `${SONNET_4_5} is LEGACY, end of life 2027-06-01: Bedrock does not serve Legacy models to new customers`,
    });
    expect(fixOf(c)).toMatch(
      /^move the catalog entry to a current model, e\.g\. "modelId": "global\.anthropic\.claude-sonnet-4-6"/,
    );
    expect(paths).toEqual([
      `/inference-profiles/global.${SONNET_4_5}`,
      `/foundation-models/${SONNET_4_5}`,
      `/foundation-model-availability/${SONNET_4_5}`,
    ]);
  });

  it("passes the example catalog's model: global.anthropic.claude-sonnet-4-6, ACTIVE", async () => {
    const { checks } = await bedrockDoctor(`global.${SONNET_4_6}`, SONNET_4_6, "ACTIVE");
    expect(checks.map((c) => c.status)).toEqual(["ok", "ok"]);
  });

  it("fails a model Bedrock does not know (404 ResourceNotFoundException)", async () => {
    const { checks } = await bedrockDoctor("amazon.nova-ultra-v9:0", SONNET_4_6, "ACTIVE");
    expect(only(checks, "model claude")).toMatchObject({
      status: "fail",
      detail: "no foundation model amazon.nova-ultra-v9:0 in us-east-1",
    });
  });
});

/** The Claude API's Models API: `ModelInfo` for the models it serves, a `not_found_error` for any other id. */
function modelsApi(serves: readonly string[]) {
  return (req: RecordedRequest): Reply => {
    if (req.headers["x-api-key"] !== "sk-ant-api03-operator-key")
      return {
        status: 401,
        body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
      };
    const id = decodeURIComponent(req.path.replace(/^\/v1\/models\//, ""));
    if (serves.includes(id))
      return {
        body: { type: "model", id, display_name: "Claude Sonnet 4.6", created_at: "2026-02-17T00:00:00Z" },
      };
    return {
      status: 404,
      body: { type: "error", error: { type: "not_found_error", message: `model: ${id}` } },
    };
  };
}

async function anthropicDoctor(model: string, env: Record<string, string>) {
  server = await startRecordingServer(modelsApi([SONNET_4_6.replace("anthropic.", "")]));
  const config = parseConfig({
    domains: ["agents.example.com"],
    models: [
      {
        id: "direct",
        provider: "anthropic",
        model,
        baseUrl: server.url,
        apiKeySecret: "secretsmanager:postern/anthropic",
        egress: "external",
      },
    ],
  });
  const ports = fakePorts({ http: (url, init) => fetch(url, init), env });
  const checks = await checkAnthropicModels(beforeDeploy({ config }), ports);
  return { check: only(checks, "model direct"), requests: server.requests };
}

describe("doctor: the Claude API's own answer (GET /v1/models/{id})", () => {
  const key = { ANTHROPIC_API_KEY: "sk-ant-api03-operator-key" };

  it("fails a retired model: the Models API 404s it", async () => {
    const { check, requests } = await anthropicDoctor("claude-sonnet-4-5", key);
    expect(check).toMatchObject({
      status: "fail",
      detail:
        "the Claude API has no model claude-sonnet-4-5 (404: model: claude-sonnet-4-5): it is retired or was never a model id",
    });
    expect(fixOf(check)).toMatch(/^set "model": "claude-sonnet-4-6" in the catalog entry/);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "GET", path: "/v1/models/claude-sonnet-4-5" });
    expect(requests[0]?.headers["anthropic-version"]).toBe("2023-06-01");
  });

  it("passes a model it serves, by its display name", async () => {
    const { check } = await anthropicDoctor("claude-sonnet-4-6", key);
    expect(check).toEqual({
      check: "model direct",
      status: "ok",
      detail: "claude-sonnet-4-6 (Claude Sonnet 4.6) on the Claude API",
    });
  });

  it("a refused key fails naming the key, not the model", async () => {
    const { check } = await anthropicDoctor("claude-sonnet-4-6", { ANTHROPIC_API_KEY: "sk-ant-wrong" });
    expect(check).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/refused the key .*HTTP 401/),
    });
  });

  it("without a key the service is not asked: a model the table marks retired still fails, any other is skipped", async () => {
    const retired = await anthropicDoctor("claude-sonnet-4-5", {});
    expect(retired.requests).toEqual([]);
    expect(retired.check).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/retired from the Claude API on 2026-11-30/),
    });
    const current = await anthropicDoctor("claude-sonnet-4-6", {});
    expect(current.check).toMatchObject({ status: "skipped" });
    expect(fixOf(current.check)).toMatch(/^export ANTHROPIC_API_KEY=/);
  });
});
