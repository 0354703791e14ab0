// The synthesized template as it would stand in a deployed account: every Ref and Fn::GetAtt resolved to the
// physical name or ARN CloudFormation would give the resource (AWS's documented return values per resource
// type), so the policies can be evaluated against the ARNs our calls name. Physical names CloudFormation would
// generate are made up here (`<stack>-<logical id>`), consistently, which is all IAM evaluation needs.

type Json = Record<string, unknown>;

export interface Account {
  readonly partition: "aws";
  readonly account: string;
  readonly region: string;
  readonly stackName: string;
}

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: readonly Json[];
}

/** The explicit name property per resource type, when the template sets one. */
const NAME_PROPERTY: Record<string, string> = {
  "AWS::DynamoDB::Table": "TableName",
  "AWS::S3::Bucket": "BucketName",
  "AWS::SQS::Queue": "QueueName",
  "AWS::SNS::Topic": "TopicName",
  "AWS::IAM::Role": "RoleName",
  "AWS::Lambda::Function": "FunctionName",
  "AWS::Logs::LogGroup": "LogGroupName",
  "AWS::SES::ConfigurationSet": "Name",
  "AWS::SES::ReceiptRuleSet": "RuleSetName",
  "AWS::SES::EmailIdentity": "EmailIdentity",
  "AWS::CloudWatch::Alarm": "AlarmName",
  "AWS::Scheduler::Schedule": "Name",
};

export class DeployedTemplate {
  readonly resources: Record<string, { Type: string; Properties?: Json }>;
  readonly env: Account;

  constructor(template: Json, env: Account) {
    this.resources = template.Resources as DeployedTemplate["resources"];
    this.env = env;
  }

  type(logicalId: string): string {
    const r = this.resources[logicalId];
    if (!r) throw new Error(`no resource ${logicalId} in the template`);
    return r.Type;
  }

  /** The name CloudFormation gives the resource: its explicit name, or a generated one. */
  physicalName(logicalId: string): string {
    const r = this.resources[logicalId];
    const prop = r ? NAME_PROPERTY[r.Type] : undefined;
    const explicit = prop ? r?.Properties?.[prop] : undefined;
    if (explicit !== undefined) return String(this.resolve(explicit));
    const generated = `${this.env.stackName}-${logicalId}`;
    // bucket names are lower-case; keys get a UUID-shaped id
    if (r?.Type === "AWS::S3::Bucket") return generated.toLowerCase();
    if (r?.Type === "AWS::KMS::Key") return `00000000-0000-4000-8000-${hex12(logicalId)}`;
    return generated;
  }

  /** `Ref` per resource type (CloudFormation's return values). */
  ref(logicalId: string): string {
    const { partition: p, region, account } = this.env;
    const name = this.physicalName(logicalId);
    switch (this.type(logicalId)) {
      case "AWS::SQS::Queue":
        return `https://sqs.${region}.amazonaws.com/${account}/${name}`;
      case "AWS::SNS::Topic":
        return `arn:${p}:sns:${region}:${account}:${name}`;
      default:
        return name;
    }
  }

  /** `Fn::GetAtt` per resource type and attribute. */
  getAtt(logicalId: string, attribute: string): string {
    const { partition: p, region, account } = this.env;
    const name = this.physicalName(logicalId);
    const type = this.type(logicalId);
    if (attribute === "Arn" || attribute.endsWith("Arn")) {
      switch (type) {
        case "AWS::DynamoDB::Table":
          return `arn:${p}:dynamodb:${region}:${account}:table/${name}`;
        case "AWS::S3::Bucket":
          return `arn:${p}:s3:::${name}`;
        case "AWS::SQS::Queue":
          return `arn:${p}:sqs:${region}:${account}:${name}`;
        case "AWS::SNS::Topic":
          return `arn:${p}:sns:${region}:${account}:${name}`;
        case "AWS::KMS::Key":
          return `arn:${p}:kms:${region}:${account}:key/${name}`;
        case "AWS::Logs::LogGroup":
          return `arn:${p}:logs:${region}:${account}:log-group:${name}:*`;
        case "AWS::IAM::Role":
          return `arn:${p}:iam::${account}:role/${name}`;
        case "AWS::Lambda::Function":
          return `arn:${p}:lambda:${region}:${account}:function:${name}`;
        case "AWS::Scheduler::Schedule":
          return `arn:${p}:scheduler:${region}:${account}:schedule/default/${name}`;
        case "AWS::CloudWatch::Alarm":
          return `arn:${p}:cloudwatch:${region}:${account}:alarm:${name}`;
      }
    }
    if (type === "AWS::SQS::Queue" && attribute === "QueueName") return name;
    if (type === "AWS::SQS::Queue" && attribute === "QueueUrl") return this.ref(logicalId);
    if (type === "AWS::SNS::Topic" && attribute === "TopicName") return name;
    if (type === "AWS::KMS::Key" && attribute === "KeyId") return name;
    throw new Error(`Fn::GetAtt ${logicalId}.${attribute} (${type}) is not modelled`);
  }

  /** Evaluate intrinsic functions and pseudo parameters. */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== "object") return value;
    const o = value as Json;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const [k] = keys as [string];
      const arg = o[k];
      switch (k) {
        case "Ref":
          return this.pseudo(String(arg)) ?? this.ref(String(arg));
        case "Fn::GetAtt": {
          const [id, attr] = Array.isArray(arg) ? (arg as string[]) : String(arg).split(/\.(.+)/);
          return this.getAtt(id as string, attr as string);
        }
        case "Fn::Join": {
          const [sep, parts] = arg as [string, unknown[]];
          return (this.resolve(parts) as unknown[]).join(sep);
        }
        case "Fn::Select": {
          const [i, list] = arg as [number, unknown];
          return (this.resolve(list) as unknown[])[Number(this.resolve(i))];
        }
        case "Fn::Split": {
          const [sep, text] = arg as [string, unknown];
          return String(this.resolve(text)).split(sep);
        }
        case "Fn::Sub":
          return this.sub(arg);
      }
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, this.resolve(v)]));
  }

  private pseudo(name: string): string | undefined {
    const { partition, region, account, stackName } = this.env;
    const table: Record<string, string> = {
      "AWS::Partition": partition,
      "AWS::Region": region,
      "AWS::AccountId": account,
      "AWS::URLSuffix": "amazonaws.com",
      "AWS::StackName": stackName,
      "AWS::StackId": `arn:${partition}:cloudformation:${region}:${account}:stack/${stackName}/0`,
    };
    return table[name];
  }

  private sub(arg: unknown): string {
    const [text, vars] = Array.isArray(arg) ? (arg as [string, Json]) : [String(arg), {}];
    return text.replace(/\$\{([^}!][^}]*)\}/g, (_m, name: string) => {
      if (name in vars) return String(this.resolve(vars[name]));
      const pseudo = this.pseudo(name);
      if (pseudo !== undefined) return pseudo;
      const dot = name.indexOf(".");
      return dot < 0 ? this.ref(name) : this.getAtt(name.slice(0, dot), name.slice(dot + 1));
    });
  }

  /** Identity policies of a role: its inline policies and every AWS::IAM::Policy attached to it, resolved. */
  identityPolicies(roleLogicalId: string): { name: string; policy: PolicyDocument }[] {
    const out: { name: string; policy: PolicyDocument }[] = [];
    const role = this.resources[roleLogicalId];
    for (const p of (role?.Properties?.Policies as { PolicyName: string; PolicyDocument: Json }[]) ?? [])
      out.push({ name: p.PolicyName, policy: this.resolve(p.PolicyDocument) as PolicyDocument });
    for (const [id, r] of Object.entries(this.resources)) {
      if (r.Type !== "AWS::IAM::Policy") continue;
      const roles = (r.Properties?.Roles as unknown[]) ?? [];
      if (!roles.some((x) => (x as Json).Ref === roleLogicalId)) continue;
      out.push({ name: id, policy: this.resolve(r.Properties?.PolicyDocument) as PolicyDocument });
    }
    return out;
  }

  /** A role's trust policy (AssumeRolePolicyDocument), resolved. */
  trustPolicy(roleLogicalId: string): PolicyDocument {
    return this.resolve(
      this.resources[roleLogicalId]?.Properties?.AssumeRolePolicyDocument,
    ) as PolicyDocument;
  }

  /** The resource policy that governs a resource: bucket, queue and topic policies, a key's own policy. */
  resourcePolicy(logicalId: string): PolicyDocument | undefined {
    const type = this.type(logicalId);
    if (type === "AWS::KMS::Key")
      return this.resolve(this.resources[logicalId]?.Properties?.KeyPolicy) as PolicyDocument;
    const policyType: Record<string, [string, string]> = {
      "AWS::S3::Bucket": ["AWS::S3::BucketPolicy", "Bucket"],
      "AWS::SQS::Queue": ["AWS::SQS::QueuePolicy", "Queues"],
      "AWS::SNS::Topic": ["AWS::SNS::TopicPolicy", "Topics"],
    };
    const spec = policyType[type];
    if (!spec) return undefined;
    const statements: Json[] = [];
    for (const r of Object.values(this.resources)) {
      if (r.Type !== spec[0]) continue;
      const target = r.Properties?.[spec[1]];
      const targets = Array.isArray(target) ? target : [target];
      const mine = targets.some((t) => {
        const resolved = this.resolve(t);
        return resolved === this.ref(logicalId) || resolved === this.physicalName(logicalId);
      });
      if (!mine) continue;
      const doc = this.resolve(r.Properties?.PolicyDocument) as PolicyDocument;
      statements.push(...doc.Statement);
    }
    return statements.length ? { Version: "2012-10-17", Statement: statements } : undefined;
  }

  /** Logical ids of every resource of a type. */
  ofType(type: string): string[] {
    return Object.entries(this.resources)
      .filter(([, r]) => r.Type === type)
      .map(([id]) => id);
  }
}

function hex12(s: string): string {
  let h = 0;
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h.toString(16).padStart(12, "0").slice(-12);
}
