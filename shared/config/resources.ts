import { PosternError } from "../errors.ts";
import { TABLE_KEYS, type TableKey } from "./tables.ts";

/**
 * Names of the deployed resources a function or the CLI talks to. In AWS they come from environment variables
 * set by CDK; locally the local stack builds the same object. One shape everywhere, so handlers never know
 * whether they run in Lambda or in the local stack.
 */
export interface Resources {
  readonly region: string;
  readonly tables: Readonly<Record<TableKey, string>>;
  readonly bucket: string;
  readonly queues: {
    readonly verify: string;
    readonly agentStep: string;
    readonly outbound: string;
    /**
     * Webhook events (docs/events.md): what emission points send to and the worker polls, and its DLQ (the worker
     * moves an event there itself once its retries are spent). Optional: a stack or resource file without them
     * emits nothing.
     */
    readonly events?: string;
    readonly eventsDeadLetter?: string;
  };
  /**
   * What `postern doctor` checks beyond the names above, from the stack's PosternResources output. Optional:
   * absent locally, in the functions' environment, and in resource files saved from older stacks.
   */
  readonly alarmTopicArn?: string;
  readonly roles?: { readonly outbound: string; readonly agentStep?: string };
  readonly agentStep?: { readonly functionName: string; readonly reservedConcurrency?: number };
  /** The SES configuration set the identities use by default (its name, generated unless the config names it). */
  readonly configurationSet?: string;
  /** The topic SES's receipt rules notify (KMS-encrypted). */
  readonly notificationTopicArn?: string;
  /** The EventBridge Scheduler schedule that ticks scheduled runs. */
  readonly schedule?: { readonly name: string; readonly group: string };
  /** The operator console, when the config enables it: its function, user pool and the executions it reserves. */
  readonly console?: {
    readonly functionName: string;
    readonly userPoolId: string;
    readonly reservedConcurrency?: number;
  };
  /** Set only locally: endpoints of the emulators. In AWS the SDK's defaults apply. */
  readonly endpoints?: {
    readonly s3?: string;
    readonly sqs?: string;
    readonly dynamodb?: string;
    readonly ses?: string;
  };
}

export const ENV = {
  region: "AWS_REGION",
  bucket: "POSTERN_BUCKET",
  verifyQueue: "POSTERN_VERIFY_QUEUE_URL",
  agentStepQueue: "POSTERN_AGENT_STEP_QUEUE_URL",
  outboundQueue: "POSTERN_OUTBOUND_QUEUE_URL",
  eventsQueue: "POSTERN_EVENTS_QUEUE_URL",
  eventsDeadLetterQueue: "POSTERN_EVENTS_DLQ_URL",
  /** Table env vars are POSTERN_TABLE_<UPPER_SNAKE key>, e.g. POSTERN_TABLE_ACCESS_RULES. */
  tablePrefix: "POSTERN_TABLE_",
} as const;

export function tableEnvName(key: TableKey): string {
  return ENV.tablePrefix + key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
}

/** Read resource names from the environment; a missing one is a deployment bug, so it throws naming it. */
export function resourcesFromEnv(env: NodeJS.ProcessEnv = process.env): Resources {
  const need = (name: string): string => {
    const v = env[name];
    if (!v)
      throw new PosternError(
        "misconfigured",
        `missing environment variable ${name} (set by the Postern stack)`,
      );
    return v;
  };
  const tables = Object.fromEntries(TABLE_KEYS.map((k) => [k, need(tableEnvName(k))])) as Record<
    TableKey,
    string
  >;
  return {
    region: env[ENV.region] ?? "us-east-1",
    tables,
    bucket: need(ENV.bucket),
    queues: {
      verify: need(ENV.verifyQueue),
      agentStep: need(ENV.agentStepQueue),
      outbound: need(ENV.outboundQueue),
      ...(env[ENV.eventsQueue] ? { events: env[ENV.eventsQueue] } : {}),
      ...(env[ENV.eventsDeadLetterQueue] ? { eventsDeadLetter: env[ENV.eventsDeadLetterQueue] } : {}),
    },
  };
}
