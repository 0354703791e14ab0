import { Aws, Stack } from "aws-cdk-lib";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import type { ModelEntry } from "../../shared/config/index.ts";
import { ACTIONS } from "../iam/actions.ts";
import { acknowledgeNag } from "../nag.ts";

export interface ModelAccessProps {
  readonly models: readonly ModelEntry[];
}

/** Geographic prefixes of Bedrock cross-region inference profile ids (`us.anthropic...`, `global.anthropic...`). */
const PROFILE_PREFIX = /^(us|eu|apac|us-gov|jp|au|ca|global)\./;

/**
 * IAM resources for one Bedrock model id. A plain id is a foundation model in the entry's region. A
 * cross-region inference profile needs the profile in the calling region AND the foundation model in every
 * region the profile routes to (regions it chooses), hence the region wildcard on that one model only.
 */
export function bedrockResources(modelId: string, region: string, account: string): string[] {
  const p = Aws.PARTITION;
  if (modelId.startsWith("arn:")) return [modelId];
  const profile = PROFILE_PREFIX.exec(modelId);
  if (profile) {
    const base = modelId.slice(profile[0].length);
    return [
      `arn:${p}:bedrock:${region}:${account}:inference-profile/${modelId}`,
      `arn:${p}:bedrock:*::foundation-model/${base}`,
    ];
  }
  return [`arn:${p}:bedrock:${region}::foundation-model/${modelId}`];
}

/** Which source regions a geographic inference profile is offered in (its prefix names the geography). */
const PROFILE_GEOGRAPHY: Record<string, (region: string) => boolean> = {
  us: (r) => /^us-(east|west)-\d$/.test(r),
  "us-gov": (r) => r.startsWith("us-gov-"),
  eu: (r) => r.startsWith("eu-"),
  apac: (r) => r.startsWith("ap-"),
  jp: (r) => r === "ap-northeast-1" || r === "ap-northeast-3",
  au: (r) => r === "ap-southeast-2" || r === "ap-southeast-4",
  ca: (r) => r.startsWith("ca-"),
  global: () => true,
};

/**
 * A catalog model whose inference profile is not offered in the region the stack calls Bedrock from (`us.` called
 * from eu-west-1): the grant would name a profile that does not exist there and every call would fail. Null when
 * every profile fits.
 */
export function profileRegionProblem(models: readonly ModelEntry[], stackRegion: string): string | null {
  for (const m of models) {
    if (m.provider !== "bedrock") continue;
    const profile = PROFILE_PREFIX.exec(m.modelId);
    const region = m.region ?? stackRegion;
    const geography = profile ? (profile[1] as string) : undefined;
    if (geography && !PROFILE_GEOGRAPHY[geography]?.(region))
      return `model ${m.id}: the inference profile ${m.modelId} is not offered in ${region}; use the profile of that region's geography (e.g. ${region.startsWith("eu-") ? "eu" : region.startsWith("ap-") ? "apac" : "us"}.${m.modelId.slice(geography.length + 1)}) or global.`;
  }
  return null;
}

/** IAM resources for an `apiKeySecret` reference (shared/config/schema.ts secretRef). */
export function secretResources(
  ref: string,
  region: string,
  account: string,
): { secrets: string[]; parameters: string[] } {
  const p = Aws.PARTITION;
  if (ref.startsWith("ssm:")) {
    const name = ref.slice(4).replace(/^\//, "");
    return { secrets: [], parameters: [`arn:${p}:ssm:${region}:${account}:parameter/${name}`] };
  }
  // Secrets Manager appends "-" and six random characters to a secret's ARN; a name matches exactly that.
  if (ref.startsWith("arn:")) return { secrets: [ref, `${ref}-??????`], parameters: [] };
  const name = ref.slice("secretsmanager:".length);
  return { secrets: [`arn:${p}:secretsmanager:${region}:${account}:secret:${name}-??????`], parameters: [] };
}

/**
 * What the catalog lets the agent runtime reach: bedrock:InvokeModel on the catalog's Bedrock models only, and
 * read access to the secrets the catalog names for API keys (G16: keys stay in Secrets Manager / SSM).
 */
export class ModelAccess extends Construct {
  readonly bedrockArns: readonly string[];
  readonly secretArns: readonly string[];
  readonly parameterArns: readonly string[];
  /** Foundation models reached through a cross-region inference profile (granted in any region). */
  readonly crossRegionModels: readonly string[];

  constructor(scope: Construct, id: string, props: ModelAccessProps) {
    super(scope, id);
    const { region, account } = Stack.of(this);
    const bedrock = new Set<string>();
    const secrets = new Set<string>();
    const parameters = new Set<string>();
    for (const m of props.models) {
      if (m.provider === "bedrock")
        for (const arn of bedrockResources(m.modelId, m.region ?? region, account)) bedrock.add(arn);
      if ((m.provider === "openai-compatible" || m.provider === "anthropic") && m.apiKeySecret) {
        const r = secretResources(m.apiKeySecret, region, account);
        for (const s of r.secrets) secrets.add(s);
        for (const s of r.parameters) parameters.add(s);
      }
    }
    this.bedrockArns = [...bedrock];
    this.crossRegionModels = props.models.flatMap((m) => {
      const profile = m.provider === "bedrock" ? PROFILE_PREFIX.exec(m.modelId) : null;
      return profile && m.provider === "bedrock" ? [m.modelId.slice(profile[0].length)] : [];
    });
    this.secretArns = [...secrets];
    this.parameterArns = [...parameters];
  }

  grantInvoke(grantee: IGrantable): void {
    const add = (actions: readonly string[], resources: readonly string[]) => {
      if (resources.length > 0)
        grantee.grantPrincipal.addToPrincipalPolicy(
          new PolicyStatement({ actions: [...actions], resources: [...resources] }),
        );
    };
    add(ACTIONS.modelInvoke, this.bedrockArns);
    if (Construct.isConstruct(grantee.grantPrincipal)) {
      for (const base of this.crossRegionModels) {
        acknowledgeNag(
          grantee.grantPrincipal,
          `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${base}]`,
          "A cross-region inference profile routes to the catalog's one foundation model in regions Bedrock picks; the region is the only wildcard.",
        );
      }
    }
    add(ACTIONS.secretRead, this.secretArns);
    add(ACTIONS.parameterRead, this.parameterArns);
  }
}
