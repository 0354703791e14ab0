import { GetFoundationModelCommand, GetInferenceProfileCommand } from "@aws-sdk/client-bedrock";
import { type PolicyEvaluationDecisionType, SimulatePrincipalPolicyCommand } from "@aws-sdk/client-iam";
import { DescribeSecretCommand, ResourceNotFoundException } from "@aws-sdk/client-secrets-manager";
import { DescribeParametersCommand } from "@aws-sdk/client-ssm";
import { describe, expect, it } from "vitest";
import { checkBedrockQuotas } from "../../cli/doctor/bedrock-quotas.ts";
import { checkModelPermission } from "../../cli/doctor/model-permission.ts";
import { checkModelSecrets } from "../../cli/doctor/model-secrets.ts";
import type { QuotasPort } from "../../cli/doctor/unbundled-ports.ts";
import { parseConfig } from "../../shared/config/load.ts";
import {
  AGENT_STEP_ROLE,
  beforeDeploy,
  config,
  deployed,
  fakePorts,
  fixOf,
  HEALTHY_QUOTAS,
  META,
  only,
  resources,
  SECRET_ARN,
  when,
} from "./doctor-fakes.ts";

const SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const KEY = "arn:aws:kms:eu-west-1:111111111111:key/0f0e0d0c-1111-4222-8333-444455556666";

/** IAM's answer deciding each (action, resource) by `decide`; resource-specific, as SimulatePrincipalPolicy returns. */
const simulation = (decide: (action: string, resource: string) => PolicyEvaluationDecisionType) =>
  when(SimulatePrincipalPolicyCommand).reply((input) => ({
    ...META,
    IsTruncated: false,
    EvaluationResults: (input.ActionNames ?? []).map((action) => ({
      EvalActionName: action,
      EvalDecision: "allowed" as const,
      ResourceSpecificResults: (input.ResourceArns ?? []).map((arn) => ({
        EvalResourceName: arn,
        EvalResourceDecision: decide(action, arn),
      })),
    })),
  }));

describe("doctor: model key secrets", () => {
  it("both kinds found, agent-step may read them: ok; the value is never read and the real ARN is simulated", async () => {
    const p = fakePorts();
    const checks = await checkModelSecrets(deployed(), p);
    expect(checks.map((c) => [c.check, c.status])).toEqual([
      ["model secret sonnet", "ok"],
      ["model secret vllm", "ok"],
    ]);
    expect(p.calls.secrets.map((c) => c.command)).toEqual(["DescribeSecretCommand"]);
    expect(p.calls.iam.map((c) => c.input)).toEqual([
      expect.objectContaining({
        PolicySourceArn: AGENT_STEP_ROLE,
        ActionNames: ["secretsmanager:GetSecretValue"],
        ResourceArns: [SECRET_ARN],
      }),
      expect.objectContaining({
        ActionNames: ["ssm:GetParameter"],
        ResourceArns: ["arn:aws:ssm:eu-west-1:111111111111:parameter/postern/vllm"],
      }),
    ]);
  });

  it("a secret that is not there fails with the command that creates it in the stack's region", async () => {
    const gone = when(DescribeSecretCommand).throws(
      new ResourceNotFoundException({
        message: "Secrets Manager can't find the specified secret.",
        $metadata: {},
      }),
    );
    const c = only(
      await checkModelSecrets(deployed(), fakePorts({ secrets: [gone] })),
      "model secret sonnet",
    );
    expect(c).toMatchObject({ status: "fail", detail: "no secret postern/anthropic in eu-west-1" });
    expect(fixOf(c)).toContain(
      "aws secretsmanager create-secret --region eu-west-1 --name postern/anthropic",
    );
  });

  it("a secret scheduled for deletion, or with no current value, fails", async () => {
    const deleting = when(DescribeSecretCommand).reply(() => ({
      ...META,
      ARN: SECRET_ARN,
      Name: "postern/anthropic",
      DeletedDate: new Date("2026-12-05T00:00:00Z"),
    }));
    const c1 = only(
      await checkModelSecrets(deployed(), fakePorts({ secrets: [deleting] })),
      "model secret sonnet",
    );
    expect(c1).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/scheduled for deletion \(2026-12-05\)/),
    });
    expect(fixOf(c1)).toContain("restore-secret");
    const empty = when(DescribeSecretCommand).reply(() => ({
      ...META,
      ARN: SECRET_ARN,
      Name: "postern/anthropic",
      VersionIdsToStages: { "a1b2c3d4-0000-4000-8000-000000000002": ["AWSPREVIOUS"] },
    }));
    const c2 = only(
      await checkModelSecrets(deployed(), fakePorts({ secrets: [empty] })),
      "model secret sonnet",
    );
    expect(c2).toMatchObject({ status: "fail", detail: "secret postern/anthropic has no current value" });
  });

  it("an SSM parameter that is missing, or not a SecureString, fails", async () => {
    const none = when(DescribeParametersCommand).reply(() => ({ ...META, Parameters: [] }));
    const c1 = only(await checkModelSecrets(deployed(), fakePorts({ ssm: [none] })), "model secret vllm");
    expect(c1).toMatchObject({ status: "fail", detail: "no parameter /postern/vllm in eu-west-1" });
    expect(fixOf(c1)).toContain("--type SecureString");
    const plain = when(DescribeParametersCommand).reply(() => ({
      ...META,
      Parameters: [{ Name: "/postern/vllm", Type: "String", Version: 1 }],
    }));
    const c2 = only(await checkModelSecrets(deployed(), fakePorts({ ssm: [plain] })), "model secret vllm");
    expect(c2).toMatchObject({ status: "fail", detail: expect.stringMatching(/stored unencrypted/) });
  });

  it("agent-step's role may not read the secret: fails, naming the grant", async () => {
    const denied = simulation((action) =>
      action === "secretsmanager:GetSecretValue" ? "implicitDeny" : "allowed",
    );
    const c = only(await checkModelSecrets(deployed(), fakePorts({ iam: [denied] })), "model secret sonnet");
    expect(c).toMatchObject({
      status: "fail",
      detail: `Postern-AgentStepRole may not: secretsmanager:GetSecretValue on ${SECRET_ARN}: implicitDeny`,
    });
    expect(fixOf(c)).toMatch(/grants agent-step secretsmanager:GetSecretValue/);
  });

  it("a customer managed key: kms:Decrypt simulated; refused warns (the key policy may allow it)", async () => {
    const cmk = when(DescribeSecretCommand).reply(() => ({
      ...META,
      ARN: SECRET_ARN,
      Name: "postern/anthropic",
      KmsKeyId: KEY,
      VersionIdsToStages: { v1: ["AWSCURRENT"] },
    }));
    const allowed = await checkModelSecrets(deployed(), fakePorts({ secrets: [cmk] }));
    expect(only(allowed, "model secret sonnet")).toMatchObject({
      status: "ok",
      detail: "secret postern/anthropic exists; agent-step may read and decrypt it",
    });
    const noDecrypt = simulation((action) => (action === "kms:Decrypt" ? "implicitDeny" : "allowed"));
    const c = only(
      await checkModelSecrets(deployed(), fakePorts({ secrets: [cmk], iam: [noDecrypt] })),
      "model secret sonnet",
    );
    expect(c).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/kms:Decrypt on .*unless the key policy/),
    });
    expect(fixOf(c)).toContain(`allow kms:Decrypt on ${KEY}`);
  });

  it("before the deploy: existence only, no simulation", async () => {
    const p = fakePorts();
    const checks = await checkModelSecrets(beforeDeploy(), p);
    expect(checks.every((c) => c.status === "ok")).toBe(true);
    expect(only(checks, "model secret sonnet").detail).toMatch(/checked after the deploy/);
    expect(p.calls.iam).toEqual([]);
  });
});

describe("doctor: Bedrock quotas", () => {
  it("reads the quotas of how the catalog calls the model: a eu. profile → Cross-Region, this model only", async () => {
    const c = only(await checkBedrockQuotas(deployed(), fakePorts()), "model quota claude");
    expect(c).toEqual({
      check: "model quota claude",
      status: "ok",
      detail:
        "Cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4.5 V1: 200000; " +
        "Cross-Region InvokeModel requests per minute for Anthropic Claude Sonnet 4.5 V1: 200",
    });
  });

  it("a quota at 0 fails: every call is throttled (a model id reads the On-demand quotas)", async () => {
    const ondemand = parseConfig({
      domains: ["agents.example.com"],
      models: [{ id: "m", provider: "bedrock", modelId: "amazon.nova-lite-v1:0", egress: "internal" }],
    });
    const quotas: QuotasPort = {
      listServiceQuotas: async () => ({
        Quotas: [
          { QuotaName: "On-demand InvokeModel tokens per minute for Amazon Nova Lite V1", Value: 0 },
          { QuotaName: "On-demand InvokeModel requests per minute for Amazon Nova Lite V1", Value: 100 },
          { QuotaName: "Cross-Region InvokeModel tokens per minute for Amazon Nova Lite V1", Value: 400_000 },
        ],
      }),
    };
    const c = only(
      await checkBedrockQuotas(deployed({ config: ondemand }), fakePorts({ quotas })),
      "model quota m",
    );
    expect(c).toMatchObject({
      status: "fail",
      detail:
        "On-demand InvokeModel tokens per minute for Amazon Nova Lite V1 is 0: Bedrock throttles every call",
    });
    expect(fixOf(c)).toMatch(/Request increase/);
  });

  it("fewer requests a minute than agent-step's concurrency warns, naming a concurrency that fits", async () => {
    const low: QuotasPort = {
      listServiceQuotas: async () => ({
        Quotas: [
          {
            QuotaName: "Cross-Region InvokeModel requests per minute for Anthropic Claude Sonnet 4.5 V1",
            Value: 4,
          },
          {
            QuotaName: "Cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4.5 V1",
            Value: 50_000,
          },
        ],
      }),
    };
    const c = only(await checkBedrockQuotas(deployed(), fakePorts({ quotas: low })), "model quota claude");
    expect(c).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/is 4, under agent-step's concurrency \(10\)/),
    });
    expect(fixOf(c)).toContain("-c agentStepConcurrency=4");
  });

  it("a global. profile reads the Global cross-Region quotas, not the geographic ones", async () => {
    const global = parseConfig({
      domains: ["agents.example.com"],
      models: [{ id: "g", provider: "bedrock", modelId: `global.${SONNET}`, egress: "internal" }],
    });
    const quotas: QuotasPort = {
      listServiceQuotas: async () => ({
        Quotas: [
          ...((await HEALTHY_QUOTAS.listServiceQuotas({ ServiceCode: "bedrock" })).Quotas ?? []),
          {
            QuotaName: "Global cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4.5 V1",
            Value: 0,
          },
        ],
      }),
    };
    const c = only(
      await checkBedrockQuotas(deployed({ config: global }), fakePorts({ quotas })),
      "model quota g",
    );
    expect(c).toMatchObject({ status: "fail", detail: expect.stringMatching(/^Global cross-Region/) });
  });

  it("a model's quotas are its own: Claude Sonnet 4 does not read Claude Sonnet 4.5's", async () => {
    const sonnet4 = "anthropic.claude-sonnet-4-20250514-v1:0";
    const catalog = parseConfig({
      domains: ["agents.example.com"],
      models: [{ id: "s4", provider: "bedrock", modelId: `eu.${sonnet4}`, egress: "internal" }],
    });
    const named = when(GetFoundationModelCommand).reply((input) => ({
      ...META,
      modelDetails: {
        modelArn: `arn:aws:bedrock:eu-west-1::foundation-model/${input.modelIdentifier}`,
        modelId: input.modelIdentifier,
        modelName: "Claude Sonnet 4",
        providerName: "Anthropic",
      },
    }));
    const quotas: QuotasPort = {
      listServiceQuotas: async () => ({
        Quotas: [
          {
            QuotaName: "Cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4.5 V1",
            Value: 0,
          },
          {
            QuotaName: "Cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4 V1",
            Value: 200_000,
          },
        ],
      }),
    };
    const c = only(
      await checkBedrockQuotas(deployed({ config: catalog }), fakePorts({ bedrock: [named], quotas })),
      "model quota s4",
    );
    expect(c).toEqual({
      check: "model quota s4",
      status: "ok",
      detail: "Cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4 V1: 200000",
    });
  });

  it("without the Service Quotas client: skipped, with the command that lists this model's quotas", async () => {
    const c = only(await checkBedrockQuotas(deployed(), fakePorts({ quotas: null })), "model quota claude");
    expect(c.status).toBe("skipped");
    expect(fixOf(c)).toContain("--service-code bedrock --region eu-west-1");
    expect(fixOf(c)).toContain("contains(QuotaName, 'Anthropic Claude Sonnet 4.5')");
  });
});

describe("doctor: agent-step may invoke the catalog's Bedrock models", () => {
  it("simulates bedrock:InvokeModel on the profile and every region it routes to", async () => {
    const p = fakePorts();
    const checks = await checkModelPermission(deployed(), p);
    expect(checks).toEqual([
      { check: "model invoke claude", status: "ok", detail: "bedrock:InvokeModel allowed on 3 resource(s)" },
    ]);
    expect(p.calls.iam[0]?.input).toMatchObject({
      PolicySourceArn: AGENT_STEP_ROLE,
      ActionNames: ["bedrock:InvokeModel"],
      ResourceArns: [
        `arn:aws:bedrock:eu-west-1:111111111111:inference-profile/eu.${SONNET}`,
        `arn:aws:bedrock:eu-west-1::foundation-model/${SONNET}`,
        `arn:aws:bedrock:eu-central-1::foundation-model/${SONNET}`,
      ],
    });
  });

  it("an SCP denying one destination region fails with the explicit-deny fix", async () => {
    const scp = simulation((_, arn) => (arn.includes(":eu-central-1:") ? "explicitDeny" : "allowed"));
    const c = only(await checkModelPermission(deployed(), fakePorts({ iam: [scp] })), "model invoke claude");
    expect(c).toMatchObject({
      status: "fail",
      detail: expect.stringContaining(
        `bedrock:InvokeModel on arn:aws:bedrock:eu-central-1::foundation-model/${SONNET}: explicitDeny`,
      ),
    });
    expect(fixOf(c)).toMatch(/explicit Deny \(SCP/);
  });

  it("a grant missing for the model fails, naming the deploy that grants it", async () => {
    const none = simulation(() => "implicitDeny");
    const c = only(await checkModelPermission(deployed(), fakePorts({ iam: [none] })), "model invoke claude");
    expect(c.status).toBe("fail");
    expect(fixOf(c)).toMatch(/grants agent-step bedrock:InvokeModel/);
  });

  it("a profile Bedrock does not list routes for is skipped (model <id> reports it), not simulated", async () => {
    const empty = when(GetInferenceProfileCommand).reply((input) => ({
      ...META,
      inferenceProfileName: "EU Claude Sonnet 4.5",
      inferenceProfileArn: `arn:aws:bedrock:eu-west-1:111111111111:inference-profile/${input.inferenceProfileIdentifier}`,
      inferenceProfileId: input.inferenceProfileIdentifier,
      models: [],
      status: "ACTIVE",
      type: "SYSTEM_DEFINED",
    }));
    const p = fakePorts({ bedrock: [empty] });
    const c = only(await checkModelPermission(deployed(), p), "model invoke claude");
    expect(c.status).toBe("skipped");
    expect(p.calls.iam).toEqual([]);
  });

  it("a resources file from an older stack (no agent-step role): skipped with how to refresh it", async () => {
    const older = { ...resources, roles: { outbound: resources.roles?.outbound ?? "" } };
    const checks = await checkModelPermission(deployed({ resources: older }), fakePorts());
    expect(checks).toMatchObject([{ check: "model invoke", status: "skipped" }]);
  });

  it("a catalog without Bedrock models has nothing to check", async () => {
    const noBedrock = { ...config, models: config.models.filter((m) => m.provider !== "bedrock") };
    expect(await checkModelPermission(deployed({ config: noBedrock }), fakePorts())).toEqual([]);
  });
});
