import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeployedTemplate } from "../helpers/aws-contract/deployed-template.ts";
import type { IamRequest } from "../helpers/aws-contract/iam-requests.ts";
import { simulate } from "../helpers/aws-contract/simulate.ts";
import { ENV, logicalId, type Synthesized, synth } from "./synth.ts";

/**
 * A `global.` inference profile, offline: agent-step's policies as the template deploys them, evaluated with AWS's
 * policy logic (iam-simulate) on every ARN Bedrock authorizes for one InvokeModel through a global profile: the
 * profile in the source region, the foundation model in the source region, the foundation model with no region
 * (global routing), and the model in any destination region the profile may pick (Amazon Bedrock User Guide,
 * "Global cross-Region inference": https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html).
 */
const BASE = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const PROFILE_ID = `global.${BASE}`;
/** Commercial regions a global profile may route to: a sample across every geography, and the stack's own. */
const DESTINATIONS = [
  ENV.region,
  "us-east-1",
  "us-east-2",
  "us-west-2",
  "ca-central-1",
  "sa-east-1",
  "eu-central-1",
  "eu-north-1",
  "eu-west-3",
  "eu-south-2",
  "ap-northeast-1",
  "ap-south-1",
  "ap-southeast-2",
  "me-central-1",
  "af-south-1",
];

let dir: string;
let s: Synthesized;
let deployed: DeployedTemplate;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "postern-global-"));
  const config = join(dir, "global.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      domains: ["agents.example.com"],
      models: [{ id: "claude", provider: "bedrock", modelId: PROFILE_ID, egress: "internal" }],
      defaultModel: "claude",
      outbound: { configurationSet: "postern" },
      receiptRuleSet: { mode: "existing", name: "default-rule-set" },
    }),
  );
  s = synth(config);
  deployed = new DeployedTemplate(s.stack.resolve(s.template.toJSON()) as Record<string, unknown>, {
    partition: "aws",
    account: ENV.account,
    region: ENV.region,
    stackName: "Postern",
  });
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const invoke = (resource: string): IamRequest => ({ action: "bedrock:InvokeModel", resource, context: {} });

async function verdicts(fn: "agentStep" | "verify", resources: readonly string[]): Promise<string[]> {
  const role = logicalId(s.stack, s.stack.functions[fn].role);
  const principal = { arn: deployed.getAtt(role, "Arn"), identityPolicies: deployed.identityPolicies(role) };
  return Promise.all(
    resources.map(
      async (r) => `${r} ${await simulate(principal, invoke(r), { resourceAccount: ENV.account })}`,
    ),
  );
}

/** An Allow of bedrock:InvokeModel whose Resource matches `arn` (IAM's wildcards: `*` any run, `?` one character). */
function allowedBy(fn: "agentStep" | "verify", arn: string): boolean {
  const role = logicalId(s.stack, s.stack.functions[fn].role);
  const glob = (p: string) =>
    new RegExp(
      `^${p
        .replace(/[.+^${}()|[\]\\]/g, "\\$&")
        .replace(/\*/g, ".*")
        .replace(/\?/g, ".")}$`,
    );
  return deployed.identityPolicies(role).some(({ policy }) =>
    policy.Statement.some((st) => {
      const x = st as { Effect?: string; Action?: string | string[]; Resource?: string | string[] };
      const actions = Array.isArray(x.Action) ? x.Action : [x.Action];
      const resources = Array.isArray(x.Resource) ? x.Resource : [x.Resource];
      return (
        x.Effect === "Allow" &&
        actions.some((a) => a === "bedrock:InvokeModel" || a === "bedrock:*") &&
        resources.some((r) => typeof r === "string" && glob(r).test(arn))
      );
    }),
  );
}

describe("a global. inference profile, evaluated offline against the synthesized policies", () => {
  it("agent-step may invoke through it: the profile, and the model in the source region, with no region, and in every destination", async () => {
    const wanted = [
      `arn:aws:bedrock:${ENV.region}:${ENV.account}:inference-profile/${PROFILE_ID}`,
      ...DESTINATIONS.map((r) => `arn:aws:bedrock:${r}::foundation-model/${BASE}`),
    ];
    for (const v of await verdicts("agentStep", wanted)) expect(v).toMatch(/ Allowed$/);
    // The region-less ARN global routing is authorized on: iam-simulate knows no resource type of that shape
    // ("no.resource.types"), so it is matched here as IAM matches a Resource, `*` spanning any characters, none too.
    expect(allowedBy("agentStep", `arn:aws:bedrock:::foundation-model/${BASE}`)).toBe(true);
  });

  it("and nothing beside it: another model, another profile, another account's profile, and verify not at all", async () => {
    const denied = await verdicts("agentStep", [
      "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-opus-4-1-20250805-v1:0",
      `arn:aws:bedrock:${ENV.region}:${ENV.account}:inference-profile/global.anthropic.claude-opus-4-1-20250805-v1:0`,
      `arn:aws:bedrock:${ENV.region}:222222222222:inference-profile/${PROFILE_ID}`,
    ]);
    for (const v of denied) expect(v).toMatch(/ ImplicitlyDenied$/);
    for (const v of await verdicts("verify", [`arn:aws:bedrock:us-east-1::foundation-model/${BASE}`]))
      expect(v).toMatch(/ ImplicitlyDenied$/);
    expect(allowedBy("verify", `arn:aws:bedrock:::foundation-model/${BASE}`)).toBe(false);
    expect(
      allowedBy("agentStep", "arn:aws:bedrock:::foundation-model/anthropic.claude-opus-4-1-20250805-v1:0"),
    ).toBe(false);
  });
});
