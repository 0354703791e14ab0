import {
  GetFoundationModelAvailabilityCommand,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
  ListInferenceProfilesCommand,
} from "@aws-sdk/client-bedrock";
import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { SimulatePrincipalPolicyCommand } from "@aws-sdk/client-iam";
import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  ListEventSourceMappingsCommand,
} from "@aws-sdk/client-lambda";
import { DescribeSecretCommand } from "@aws-sdk/client-secrets-manager";
import { DescribeActiveReceiptRuleSetCommand, GetSendStatisticsCommand } from "@aws-sdk/client-ses";
import {
  GetAccountCommand,
  GetEmailIdentityCommand,
  ListSuppressedDestinationsCommand,
} from "@aws-sdk/client-sesv2";
import { GetTopicAttributesCommand, ListSubscriptionsByTopicCommand } from "@aws-sdk/client-sns";
import { GetQueueAttributesCommand, GetQueueUrlCommand } from "@aws-sdk/client-sqs";
import { DescribeParametersCommand } from "@aws-sdk/client-ssm";
import type { DoctorContext, DoctorPorts } from "../../cli/doctor/ports.ts";
import type { DoctorCheck } from "../../cli/doctor/report.ts";
import type { CognitoPort, QuotasPort, SchedulerPort } from "../../cli/doctor/unbundled-ports.ts";
import { parseConfig } from "../../shared/config/load.ts";
import type { Resources } from "../../shared/config/resources.ts";
import { TABLE_KEYS, type TableKey } from "../../shared/config/tables.ts";
import { type Zone, zoneResolver } from "../../shared/runtime/zone-resolver.ts";

/** Any SDK v3 command class; its input and output types are read off the class, as the SDK declares them. */
type AnyCommand = abstract new (
  ...args: never[]
) => { readonly input: object; resolveMiddleware(...args: never[]): unknown };
type InputOf<C extends AnyCommand> = InstanceType<C>["input"];
type OutputOf<C extends AnyCommand> =
  ReturnType<InstanceType<C>["resolveMiddleware"]> extends (...args: never[]) => Promise<{ output: infer O }>
    ? O
    : never;

/**
 * `R` with no top-level field that `T` lacks. TypeScript does not check a returned object literal for excess fields
 * (it does for nested ones), so a misspelt top-level output field would otherwise pass.
 */
type Exact<T, R> = R & Record<Exclude<keyof R, keyof T>, never>;

export interface Answer {
  readonly command: AnyCommand;
  readonly reply: (input: never) => unknown;
}

/**
 * The answer to one command: `reply` returns the SDK's `...CommandOutput` (a misspelt field or an unknown enum value
 * fails tsc), `throws` raises the client's own exception class, constructed as the SDK raises it.
 */
export function when<C extends AnyCommand>(command: C) {
  return {
    reply: <R extends OutputOf<C>>(reply: (input: InputOf<C>) => Exact<OutputOf<C>, R>): Answer => ({
      command,
      reply,
    }),
    throws: (err: Error): Answer => ({
      command,
      reply: () => {
        throw err;
      },
    }),
  };
}

export interface Call {
  readonly command: string;
  readonly input: object;
}

/** A client whose `send` answers from `answers` (first match wins) and records every command it was sent. */
export function fakeClient(
  answers: readonly Answer[],
  calls: Call[],
): { send(command: unknown): Promise<never> } {
  return {
    send: async (command: unknown) => {
      const cmd = command as { constructor: AnyCommand; input: object };
      calls.push({ command: cmd.constructor.name, input: cmd.input });
      const answer = answers.find((a) => cmd instanceof a.command);
      // A TypeError is a bug to the doctor (rethrown), so a missing answer fails the test instead of reading as an AWS error.
      if (!answer) throw new TypeError(`fake: no answer for ${cmd.constructor.name}`);
      return answer.reply(cmd.input as never) as never;
    },
  };
}

export const META = { $metadata: {} };
export const REGION = "eu-west-1";
export const ACCOUNT = "111111111111";
export const OUTBOUND_ROLE = `arn:aws:iam::${ACCOUNT}:role/Postern-OutboundRole`;
export const ALARM_TOPIC = `arn:aws:sns:${REGION}:${ACCOUNT}:Postern-AlarmTopic`;
export const NOTIFICATION_TOPIC = `arn:aws:sns:${REGION}:${ACCOUNT}:Postern-Notifications`;
export const AGENT_STEP_ROLE = `arn:aws:iam::${ACCOUNT}:role/Postern-AgentStepRole`;
export const USER_POOL = `${REGION}_AbCdEf123`;
export const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:postern/anthropic-Ab12Cd`;
/** The doctor's clock in tests. */
export const NOW = new Date("2026-12-01T12:00:00Z");

export const config = parseConfig({
  domains: ["agents.example.com"],
  models: [
    {
      id: "claude",
      provider: "bedrock",
      modelId: "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
      egress: "internal",
    },
    {
      id: "local",
      provider: "openai-compatible",
      baseUrl: "http://127.0.0.1:11434/v1",
      model: "x",
      egress: "internal",
    },
    {
      id: "sonnet",
      provider: "anthropic",
      model: "claude-sonnet-4-6",
      apiKeySecret: "secretsmanager:postern/anthropic",
      egress: "external",
    },
    {
      id: "vllm",
      provider: "openai-compatible",
      baseUrl: "http://10.0.0.7:8000/v1",
      model: "x",
      apiKeySecret: "ssm:/postern/vllm",
      egress: "internal",
    },
  ],
  receiptRuleSet: { mode: "existing", name: "default-rule-set" },
  console: { enabled: true },
});

export const resources: Resources = {
  region: REGION,
  tables: Object.fromEntries(TABLE_KEYS.map((k) => [k, `Postern-${k}`])) as Record<TableKey, string>,
  bucket: "postern-mail",
  queues: { verify: "https://q/verify", agentStep: "https://q/agentStep", outbound: "https://q/outbound" },
  alarmTopicArn: ALARM_TOPIC,
  roles: { outbound: OUTBOUND_ROLE, agentStep: AGENT_STEP_ROLE },
  agentStep: { functionName: "Postern-AgentStep" },
  configurationSet: "postern",
  notificationTopicArn: NOTIFICATION_TOPIC,
  schedule: { name: "Postern-Tick", group: "default" },
  console: { functionName: "Postern-ConsoleFunction", userPoolId: USER_POOL },
};

export const deployed = (over: Partial<DoctorContext> = {}): DoctorContext => ({
  config,
  resources,
  region: REGION,
  agentStep: { concurrency: 10, reserve: false },
  ...over,
});
export const beforeDeploy = (over: Partial<DoctorContext> = {}): DoctorContext =>
  deployed({ resources: null, ...over });

/** A deployed, healthy account: every check ok. Tests put their own answers in front of these. */
export const HEALTHY = {
  lambda: [
    when(GetAccountSettingsCommand).reply(() => ({
      ...META,
      AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 990 },
      AccountUsage: { FunctionCount: 4 },
    })),
    when(GetFunctionConcurrencyCommand).reply(() => ({ ...META, ReservedConcurrentExecutions: 10 })),
    when(ListEventSourceMappingsCommand).reply((input) => ({
      ...META,
      EventSourceMappings: [
        {
          UUID: "6f0d6a4e-0000-4000-8000-000000000001",
          EventSourceArn: input.EventSourceArn,
          FunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:Postern-${input.EventSourceArn?.split(":").pop()}`,
          BatchSize: 5,
          State: "Enabled",
          StateTransitionReason: "USER_INITIATED",
          LastModified: new Date("2026-11-01T00:00:00Z"),
        },
      ],
    })),
  ],
  ses: [
    when(GetAccountCommand).reply(() => ({
      ...META,
      ProductionAccessEnabled: true,
      SendingEnabled: true,
      EnforcementStatus: "HEALTHY",
      SendQuota: { Max24HourSend: 50_000, MaxSendRate: 14, SentLast24Hours: 3 },
      Details: { MailType: "TRANSACTIONAL", ReviewDetails: { Status: "GRANTED", CaseId: "123" } },
    })),
    when(GetEmailIdentityCommand).reply(() => ({
      ...META,
      IdentityType: "DOMAIN",
      VerifiedForSendingStatus: true,
      DkimAttributes: { SigningEnabled: true, Status: "SUCCESS" },
      MailFromAttributes: {
        MailFromDomain: "bounce.agents.example.com",
        MailFromDomainStatus: "SUCCESS",
        BehaviorOnMxFailure: "USE_DEFAULT_VALUE",
      },
    })),
    when(ListSuppressedDestinationsCommand).reply(() => ({ ...META, SuppressedDestinationSummaries: [] })),
  ],
  sesReceipt: [
    when(DescribeActiveReceiptRuleSetCommand).reply(() => ({
      ...META,
      Metadata: { Name: "default-rule-set", CreatedTimestamp: new Date("2026-01-01T00:00:00Z") },
      Rules: [
        {
          Name: "postern-agents.example.com",
          Enabled: true,
          TlsPolicy: "Optional",
          Recipients: ["agents.example.com"],
          ScanEnabled: true,
          Actions: [
            {
              S3Action: {
                BucketName: "postern-mail",
                ObjectKeyPrefix: "inbound/",
                TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:Postern-Notifications`,
              },
            },
          ],
        },
      ],
    })),
    when(GetSendStatisticsCommand).reply(() => ({
      ...META,
      SendDataPoints: [
        {
          Timestamp: new Date("2026-11-30T10:15:00Z"),
          DeliveryAttempts: 12,
          Bounces: 0,
          Complaints: 0,
          Rejects: 0,
        },
        {
          Timestamp: new Date("2026-11-30T10:30:00Z"),
          DeliveryAttempts: 3,
          Bounces: 1,
          Complaints: 0,
          Rejects: 0,
        },
      ],
    })),
  ],
  bedrock: [
    when(GetInferenceProfileCommand).reply((input) => ({
      ...META,
      inferenceProfileName: "EU Claude Sonnet 4.5",
      inferenceProfileArn: `arn:aws:bedrock:${REGION}:${ACCOUNT}:inference-profile/${input.inferenceProfileIdentifier}`,
      inferenceProfileId: input.inferenceProfileIdentifier,
      models: [
        { modelArn: "arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0" },
        {
          modelArn:
            "arn:aws:bedrock:eu-central-1::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0",
        },
      ],
      status: "ACTIVE",
      type: "SYSTEM_DEFINED",
    })),
    when(GetFoundationModelCommand).reply((input) => ({
      ...META,
      modelDetails: {
        modelArn: `arn:aws:bedrock:${REGION}::foundation-model/${input.modelIdentifier}`,
        modelId: input.modelIdentifier,
        modelName: input.modelIdentifier?.includes("claude-sonnet-4-5") ? "Claude Sonnet 4.5" : "Nova Lite",
        providerName: input.modelIdentifier?.includes("anthropic") ? "Anthropic" : "Amazon",
        inferenceTypesSupported: ["ON_DEMAND"],
        modelLifecycle: { status: "ACTIVE" },
      },
    })),
    when(GetFoundationModelAvailabilityCommand).reply((input) => ({
      ...META,
      modelId: input.modelId,
      agreementAvailability: { status: "AVAILABLE" },
      authorizationStatus: "AUTHORIZED",
      entitlementAvailability: "AVAILABLE",
      regionAvailability: "AVAILABLE",
    })),
    when(ListInferenceProfilesCommand).reply(() => ({ ...META, inferenceProfileSummaries: [] })),
  ],
  dynamo: [
    when(DescribeTableCommand).reply((input) => ({
      ...META,
      Table: { TableName: input.TableName, TableStatus: "ACTIVE" },
    })),
  ],
  sqs: [
    when(GetQueueUrlCommand).reply((input) => ({ ...META, QueueUrl: `https://q/${input.QueueName}` })),
    when(GetQueueAttributesCommand).reply((input) =>
      input.QueueUrl?.endsWith("-dlq")
        ? { ...META, Attributes: { ApproximateNumberOfMessages: "0" } }
        : {
            ...META,
            Attributes: {
              QueueArn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${input.QueueUrl?.split("/").pop()}`,
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${input.QueueUrl?.split("/").pop()}-dlq`,
                maxReceiveCount: 5,
              }),
            },
          },
    ),
  ],
  sns: [
    when(ListSubscriptionsByTopicCommand).reply(() => ({
      ...META,
      Subscriptions: [
        {
          SubscriptionArn: `${ALARM_TOPIC}:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`,
          Owner: ACCOUNT,
          Protocol: "email",
          Endpoint: "ops@example.com",
          TopicArn: ALARM_TOPIC,
        },
      ],
    })),
    when(GetTopicAttributesCommand).reply((input) => ({
      ...META,
      Attributes: {
        TopicArn: input.TopicArn ?? "",
        KmsMasterKeyId: `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
      },
    })),
  ],
  secrets: [
    when(DescribeSecretCommand).reply((input) => ({
      ...META,
      ARN: SECRET_ARN,
      Name: input.SecretId,
      VersionIdsToStages: { "a1b2c3d4-0000-4000-8000-000000000001": ["AWSCURRENT"] },
      CreatedDate: new Date("2026-10-01T00:00:00Z"),
    })),
  ],
  ssm: [
    when(DescribeParametersCommand).reply((input) => ({
      ...META,
      Parameters: [
        {
          Name: input.ParameterFilters?.[0]?.Values?.[0],
          ARN: `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/postern/vllm`,
          Type: "SecureString",
          KeyId: "alias/aws/ssm",
          Version: 1,
          Tier: "Standard",
          DataType: "text",
        },
      ],
    })),
  ],
  iam: [
    when(SimulatePrincipalPolicyCommand).reply((input) => ({
      ...META,
      IsTruncated: false,
      EvaluationResults: (input.ActionNames ?? []).map((action) => ({
        EvalActionName: action,
        EvalDecision: "allowed" as const,
        ResourceSpecificResults: (input.ResourceArns ?? []).map((arn) => ({
          EvalResourceName: arn,
          EvalResourceDecision: "allowed" as const,
        })),
      })),
    })),
  ],
  mx: [{ exchange: "inbound-smtp.eu-west-1.amazonaws.com.", priority: 10 }],
};

/** DNS beyond MX, in the local stack's zone shape (shared/runtime/zone-resolver.ts). */
export const HEALTHY_ZONE: Zone = {
  "_dmarc.agents.example.com": { TXT: [["v=DMARC1; p=quarantine"]] },
};

/** Recorded answers of the services whose clients are not dependencies (unbundled-ports.ts), as their API references show them. */
export const HEALTHY_COGNITO: CognitoPort = {
  describeUserPool: async (input) => ({
    UserPool: {
      Id: input.UserPoolId,
      Name: "PosternOperators",
      MfaConfiguration: "ON",
      EstimatedNumberOfUsers: 1,
    },
  }),
  listUsers: async () => ({
    Users: [{ Username: "3f1e2d3c-ops", Enabled: true, UserStatus: "CONFIRMED" }],
  }),
};
export const HEALTHY_SCHEDULER: SchedulerPort = {
  getSchedule: async (input) => ({
    Name: input.Name,
    GroupName: input.GroupName ?? "default",
    State: "ENABLED",
    ScheduleExpression: "rate(1 minute)",
    Target: {
      Arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:agentStep`,
      RoleArn: `arn:aws:iam::${ACCOUNT}:role/Tick`,
    },
  }),
};
export const HEALTHY_QUOTAS: QuotasPort = {
  listServiceQuotas: async () => ({
    Quotas: [
      {
        QuotaName: "Cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4.5 V1",
        QuotaCode: "L-F4DDD3EB",
        Value: 200_000,
        Adjustable: true,
      },
      {
        QuotaName: "Cross-Region InvokeModel requests per minute for Anthropic Claude Sonnet 4.5 V1",
        QuotaCode: "L-4A6BFAB1",
        Value: 200,
        Adjustable: true,
      },
      {
        QuotaName: "On-demand InvokeModel tokens per minute for Anthropic Claude Sonnet 4.5 V1",
        QuotaCode: "L-27C57EE8",
        Value: 0,
        Adjustable: true,
      },
      {
        QuotaName: "Cross-Region InvokeModel tokens per minute for Anthropic Claude Sonnet 4 V1",
        QuotaCode: "L-59759B4A",
        Value: 0,
        Adjustable: true,
      },
    ],
  }),
};

export type Service = Exclude<keyof typeof HEALTHY, "mx">;
export type Overrides = Partial<Record<Service, Answer[]>> & {
  mx?: () => Promise<{ exchange: string; priority: number }[]>;
  /** Replaces HEALTHY_ZONE. */
  zone?: Zone;
  /** A port, or null for "this install has no client". */
  cognito?: CognitoPort | null;
  scheduler?: SchedulerPort | null;
  quotas?: QuotasPort | null;
  /** The credential chain's answer: rejects when there are none. */
  credentials?: () => Promise<unknown>;
  /** HTTP for the Claude API check (null: none, the check is skipped); default HEALTHY_MODELS_API. */
  http?: DoctorPorts["http"];
  env?: Readonly<Record<string, string | undefined>>;
};

/** The Claude API's Models API knowing every model asked for (its `ModelInfo` shape). */
const HEALTHY_MODELS_API: DoctorPorts["http"] = async (url) => {
  const id = decodeURIComponent(url.split("/v1/models/")[1] ?? "");
  const info = { type: "model", id, display_name: id, created_at: "2026-02-17T00:00:00Z" };
  return new Response(JSON.stringify(info), { status: 200, headers: { "content-type": "application/json" } });
};

/** Ports answering as HEALTHY, with `over`'s answers tried first; `calls[service]` records what each was sent. */
export function fakePorts(over: Overrides = {}): DoctorPorts & {
  calls: Record<Service, Call[]>;
  bedrockRegions: string[];
  dns: ReturnType<typeof zoneResolver>;
} {
  const calls = {
    lambda: [],
    ses: [],
    sesReceipt: [],
    bedrock: [],
    dynamo: [],
    sqs: [],
    sns: [],
    iam: [],
    secrets: [],
    ssm: [],
  } as Record<Service, Call[]>;
  const dns = zoneResolver(over.zone ?? HEALTHY_ZONE);
  const client = (s: Service) => fakeClient([...(over[s] ?? []), ...HEALTHY[s]], calls[s]);
  const bedrock = client("bedrock");
  const bedrockRegions: string[] = [];
  return {
    calls,
    bedrockRegions,
    ses: client("ses"),
    sesReceipt: client("sesReceipt"),
    dynamo: client("dynamo"),
    sqs: client("sqs"),
    lambda: client("lambda"),
    sns: client("sns"),
    iam: client("iam"),
    bedrock: (region) => {
      bedrockRegions.push(region);
      return bedrock;
    },
    secrets: client("secrets"),
    ssm: client("ssm"),
    resolveMx: over.mx ?? (async () => HEALTHY.mx),
    dns,
    resolveTxt: (name) => dns(name, "TXT"),
    cognito: over.cognito === undefined ? HEALTHY_COGNITO : over.cognito,
    scheduler: over.scheduler === undefined ? HEALTHY_SCHEDULER : over.scheduler,
    quotas:
      over.quotas === undefined ? () => HEALTHY_QUOTAS : over.quotas && (() => over.quotas as QuotasPort),
    http: over.http === undefined ? HEALTHY_MODELS_API : over.http,
    env: over.env ?? { ANTHROPIC_API_KEY: "sk-ant-api03-doctor-test-key" },
    now: () => NOW,
    credentials: over.credentials ?? (async () => ({ accessKeyId: "AKIDEXAMPLE", secretAccessKey: "x" })),
  };
}

/** The checks whose name starts with `prefix`. */
export const named = (checks: readonly DoctorCheck[], prefix: string) =>
  checks.filter((c) => c.check.startsWith(prefix));
/** The one check named exactly `name` (throws if absent, so a test reads its fields directly). */
export function only(checks: readonly DoctorCheck[], name: string): DoctorCheck {
  const c = checks.find((x) => x.check === name);
  if (!c) throw new Error(`no check ${name} in ${checks.map((x) => x.check).join(", ")}`);
  return c;
}
export const fixOf = (c: DoctorCheck | undefined): string => (!c || c.status === "ok" ? "" : c.fix);
