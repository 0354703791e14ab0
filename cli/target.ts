import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { AwsClients } from "../shared/aws/index.ts";
import { makeDynamoClient } from "../shared/aws/index.ts";
import { type DeploymentConfig, type Resources, resourcesFromEnv } from "../shared/config/index.ts";
import { TargetError } from "./errors.ts";
import { liveStackFile } from "./local/stack-file.ts";

export type TargetKind = "local-running" | "local-offline" | "aws";

export interface Target<C extends Partial<AwsClients> = AwsClients> {
  readonly kind: TargetKind;
  readonly resources: Resources;
  readonly clients: C;
  /** The running local stack's deployment config file, when it recorded one (admin writes are checked against it). */
  readonly configFile?: string;
  /** The config that stack loaded at start (what it runs, whatever the file says now). */
  readonly runningConfig?: DeploymentConfig;
  /** The running local stack reaches webhook receivers on loopback (POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1). */
  readonly webhookLoopback?: boolean;
  close(): Promise<void>;
}

export interface TargetOptions {
  readonly target?: "local" | "aws";
  /** Local emulator state; default `.postern/data`. The stack file is `<dataDir>/../stack.json`. */
  readonly dataDir?: string;
  /** AWS only: JSON file of Resources (without endpoints), as the CDK stack outputs it. */
  readonly resourcesFile?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** A target whose only client is DynamoDB's: the admin tables, runs and send state. */
export type TableTarget = Target<{ readonly dynamo: DynamoDBDocumentClient }>;

/**
 * Where the admin CLI talks to. Locally: the running stack when `.postern/stack.json` names a live process whose
 * DynamoDB answers (so agents change without a restart); otherwise the emulators started in-process on the same
 * data directory for the one command. Never both: LevelDB is single-process, so the data directory is opened
 * only when no live stack holds it.
 */
export async function openTarget(opts: TargetOptions = {}): Promise<Target> {
  const place = await locate(opts);
  // The S3 and SQS clients are loaded only by the commands that need them (see openTableTarget).
  const { makeClients } = await import("../shared/aws/index.ts");
  const clients = makeClients(place.resources);
  return withClients(place, clients, () => {
    clients.s3.destroy();
    clients.sqs.destroy();
    clients.dynamo.destroy();
  });
}

/** As openTarget, with the DynamoDB client alone: `runs list` and the admin tables start ~0.2 s sooner. */
export async function openTableTarget(opts: TargetOptions = {}): Promise<TableTarget> {
  const place = await locate(opts);
  const dynamo = makeDynamoClient(place.resources);
  return withClients(place, { dynamo }, () => dynamo.destroy());
}

interface Place {
  readonly kind: TargetKind;
  readonly resources: Resources;
  readonly configFile?: string;
  readonly runningConfig?: DeploymentConfig;
  readonly webhookLoopback?: boolean;
  /** Stops what locate started (the in-process emulators). */
  readonly stop: () => Promise<void>;
}

function withClients<C extends Partial<AwsClients>>(
  place: Place,
  clients: C,
  destroy: () => void,
): Target<C> {
  return {
    kind: place.kind,
    resources: place.resources,
    clients,
    ...(place.configFile ? { configFile: place.configFile } : {}),
    ...(place.runningConfig ? { runningConfig: place.runningConfig } : {}),
    ...(place.webhookLoopback !== undefined ? { webhookLoopback: place.webhookLoopback } : {}),
    close: async () => {
      destroy();
      await place.stop();
    },
  };
}

async function locate(opts: TargetOptions): Promise<Place> {
  const none = async () => {};
  if (opts.target === "aws") return { kind: "aws", resources: await awsResources(opts), stop: none };
  const dataDir = resolve(opts.dataDir ?? join(".postern", "data"));
  const stack = liveStackFile(join(dirname(dataDir), "stack.json"));
  if (stack) {
    const endpoint = stack.resources.endpoints?.dynamodb;
    if (endpoint && (await answers(endpoint, stack.resources.region)))
      return {
        kind: "local-running",
        resources: stack.resources,
        ...(stack.configFile ? { configFile: stack.configFile } : {}),
        ...(stack.config ? { runningConfig: stack.config } : {}),
        ...(stack.webhookLoopback !== undefined ? { webhookLoopback: stack.webhookLoopback } : {}),
        stop: none,
      };
    throw new TargetError(
      `the local stack (pid ${stack.pid}) holds ${dataDir} but its DynamoDB does not answer; wait for it to finish starting, or stop it`,
    );
  }
  // Loaded only here: the emulators (dynalite, fauxqs) are heavy, and a running stack does not need them.
  const { startEmulators } = await import("./local/emulators.ts");
  const emulators = await startEmulators({ dataDir });
  return { kind: "local-offline", resources: emulators.resources, stop: () => emulators.stop() };
}

/** No endpoints: the SDK's default credential chain (AWS_PROFILE, SSO, instance roles) and endpoints apply. */
async function awsResources(opts: TargetOptions): Promise<Resources> {
  const env = opts.env ?? process.env;
  if (!opts.resourcesFile) {
    try {
      return resourcesFromEnv(env);
    } catch (err) {
      throw new TargetError(`${(err as Error).message}; or pass --resources FILE (the stack's outputs)`);
    }
  }
  const file = resolve(opts.resourcesFile);
  if (!existsSync(file)) throw new TargetError(`--resources ${file}: no such file`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new TargetError(`--resources ${file}: not valid JSON (${(err as Error).message})`);
  }
  const { resourcesFileSchema } = await import("./resources-file.ts");
  const r = resourcesFileSchema.safeParse(json);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`).join("; ");
    throw new TargetError(`--resources ${file}: ${issues}`);
  }
  // Region from the usual AWS environment first, as every AWS tool does; the file's region is the fallback.
  return { ...r.data, region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? r.data.region ?? "us-east-1" };
}

async function answers(endpoint: string, region: string): Promise<boolean> {
  const client = new DynamoDBClient({
    region,
    endpoint,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    maxAttempts: 1,
  });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}
