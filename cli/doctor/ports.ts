import { promises as dns } from "node:dns";
import { BedrockClient } from "@aws-sdk/client-bedrock";
import {
  CognitoIdentityProviderClient,
  DescribeUserPoolCommand,
  ListUsersCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { IAMClient } from "@aws-sdk/client-iam";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { GetScheduleCommand, SchedulerClient } from "@aws-sdk/client-scheduler";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { ListServiceQuotasCommand, ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import { SESClient } from "@aws-sdk/client-ses";
import { SESv2Client } from "@aws-sdk/client-sesv2";
import { SNSClient } from "@aws-sdk/client-sns";
import { SQSClient } from "@aws-sdk/client-sqs";
import { SSMClient } from "@aws-sdk/client-ssm";
import type { DeploymentConfig, Resources } from "../../shared/config/index.ts";
import type { CognitoPort, QuotasPort, SchedulerPort } from "./unbundled-ports.ts";

/** What the doctor checks against. */
export interface DoctorContext {
  readonly config: DeploymentConfig;
  /** The deployed stack's PosternResources; null before the first deploy (only account-level checks run then). */
  readonly resources: Resources | null;
  readonly region: string;
  /**
   * agent-step's concurrency as the deploy sets it: the most copies that run at once (the SQS event source's
   * maxConcurrency, `-c agentStepConcurrency`) and whether it is also reserved (`-c reserveAgentStepConcurrency`).
   */
  readonly agentStep: { readonly concurrency: number; readonly reserve: boolean };
}

/**
 * The SDK calls the doctor makes, each behind a port so a test hands in fakes that record what was asked. One
 * client per service; Bedrock per region because a catalog entry may name its own region.
 */
export interface DoctorPorts {
  readonly ses: Pick<SESv2Client, "send">;
  /** SES v1: receipt rules and the send statistics exist only in the v1 API. */
  readonly sesReceipt: Pick<SESClient, "send">;
  readonly dynamo: Pick<DynamoDBClient, "send">;
  readonly sqs: Pick<SQSClient, "send">;
  readonly lambda: Pick<LambdaClient, "send">;
  readonly sns: Pick<SNSClient, "send">;
  readonly iam: Pick<IAMClient, "send">;
  readonly bedrock: (region: string) => Pick<BedrockClient, "send">;
  readonly secrets: Pick<SecretsManagerClient, "send">;
  readonly ssm: Pick<SSMClient, "send">;
  readonly resolveMx: (domain: string) => Promise<{ exchange: string; priority: number }[]>;
  /** TXT records of a name, each as its character-strings (node:dns `resolveTxt`). */
  readonly resolveTxt: (name: string) => Promise<string[][]>;
  /** Null where a caller has no such client (a test of the other checks): the check is skipped and says so. */
  readonly cognito: CognitoPort | null;
  readonly scheduler: SchedulerPort | null;
  /** Service Quotas per region, as Bedrock (a catalog entry may name its own region). */
  readonly quotas: ((region: string) => QuotasPort) | null;
  /** HTTP for the Claude API's Models API; null where a caller has none (the check is skipped and says so). */
  readonly http: ((url: string, init: RequestInit) => Promise<Response>) | null;
  /** The operator's environment: where the Claude API check finds a key of their own (never a deployed secret). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
  /** Resolves the SDK's credential chain once; rejects (CredentialsProviderError) when it finds none. */
  readonly credentials: () => Promise<unknown>;
}

/** The real ports: the SDK's default credential chain and endpoints in `region`. */
export function awsPorts(region: string): DoctorPorts {
  const bedrock = new Map<string, BedrockClient>();
  const quotas = new Map<string, ServiceQuotasClient>();
  const lambda = new LambdaClient({ region });
  return {
    ses: new SESv2Client({ region }),
    sesReceipt: new SESClient({ region }),
    dynamo: new DynamoDBClient({ region }),
    sqs: new SQSClient({ region }),
    lambda,
    sns: new SNSClient({ region }),
    // IAM is global; the SDK picks its endpoint from the partition of `region`.
    iam: new IAMClient({ region }),
    bedrock: (r) => {
      const client = bedrock.get(r) ?? new BedrockClient({ region: r });
      bedrock.set(r, client);
      return client;
    },
    secrets: new SecretsManagerClient({ region }),
    ssm: new SSMClient({ region }),
    resolveMx: (domain) => dns.resolveMx(domain),
    resolveTxt: (name) => dns.resolveTxt(name),
    cognito: cognitoPort(new CognitoIdentityProviderClient({ region })),
    scheduler: schedulerPort(new SchedulerClient({ region })),
    quotas: (r) => {
      const client = quotas.get(r) ?? new ServiceQuotasClient({ region: r });
      quotas.set(r, client);
      return quotasPort(client);
    },
    http: (url, init) => fetch(url, init),
    env: process.env,
    now: () => new Date(),
    // Every client resolves the same default chain; asking one is asking all.
    credentials: () => lambda.config.credentials(),
  };
}

/** The one call each check makes, through the service's SDK client (the ports are typed from its API reference). */
export function cognitoPort(client: Pick<CognitoIdentityProviderClient, "send">): CognitoPort {
  return {
    describeUserPool: (input) => client.send(new DescribeUserPoolCommand(input)),
    listUsers: (input) => client.send(new ListUsersCommand(input)),
  };
}

export function schedulerPort(client: Pick<SchedulerClient, "send">): SchedulerPort {
  return { getSchedule: (input) => client.send(new GetScheduleCommand(input)) };
}

export function quotasPort(client: Pick<ServiceQuotasClient, "send">): QuotasPort {
  return { listServiceQuotas: (input) => client.send(new ListServiceQuotasCommand(input)) };
}
