import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import * as z from "zod";
import { type AwsClients, makeClients } from "../shared/aws/clients.ts";
import { type Resources, resourcesFromEnv } from "../shared/config/resources.ts";
import { TABLE_KEYS, type TableKey } from "../shared/config/tables.ts";
import { TargetError } from "./errors.ts";
import { liveStackFile } from "./local/stack-file.ts";

export type TargetKind = "local-running" | "local-offline" | "aws";

export interface Target {
  readonly kind: TargetKind;
  readonly resources: Resources;
  readonly clients: AwsClients;
  /** The running local stack's deployment config file, when it recorded one (admin writes are checked against it). */
  readonly configFile?: string;
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

const resourcesFileSchema = z
  .object({
    region: z.string().min(1).optional(),
    tables: z.object(
      Object.fromEntries(TABLE_KEYS.map((k) => [k, z.string().min(1)])) as Record<TableKey, z.ZodString>,
    ),
    bucket: z.string().min(1),
    queues: z.object({
      verify: z.string().min(1),
      agentStep: z.string().min(1),
      outbound: z.string().min(1),
    }),
    // Read by `postern doctor` only; optional so resource files saved from older stacks still load.
    alarmTopicArn: z.string().min(1).optional(),
    roles: z
      .object({ outbound: z.string().min(1), agentStep: z.string().min(1).optional() })
      .strict()
      .optional(),
    agentStep: z
      .object({ functionName: z.string().min(1), reservedConcurrency: z.number().int().min(0).optional() })
      .strict()
      .optional(),
    configurationSet: z.string().min(1).optional(),
    notificationTopicArn: z.string().min(1).optional(),
    schedule: z
      .object({ name: z.string().min(1), group: z.string().min(1) })
      .strict()
      .optional(),
    console: z
      .object({ functionName: z.string().min(1), userPoolId: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();

/**
 * Where the admin CLI talks to. Locally: the running stack when `.postern/stack.json` names a live process whose
 * DynamoDB answers (so agents change without a restart); otherwise the emulators started in-process on the same
 * data directory for the one command. Never both: LevelDB is single-process, so the data directory is opened
 * only when no live stack holds it.
 */
export async function openTarget(opts: TargetOptions = {}): Promise<Target> {
  if (opts.target === "aws") return openAws(opts);
  const dataDir = resolve(opts.dataDir ?? join(".postern", "data"));
  const stack = liveStackFile(join(dirname(dataDir), "stack.json"));
  if (stack) {
    const endpoint = stack.resources.endpoints?.dynamodb;
    if (endpoint && (await answers(endpoint, stack.resources.region))) {
      const clients = makeClients(stack.resources);
      return {
        kind: "local-running",
        resources: stack.resources,
        clients,
        ...(stack.configFile ? { configFile: stack.configFile } : {}),
        close: async () => destroy(clients),
      };
    }
    throw new TargetError(
      `the local stack (pid ${stack.pid}) holds ${dataDir} but its DynamoDB does not answer; wait for it to finish starting, or stop it`,
    );
  }
  // Loaded only here: the emulators (dynalite, fauxqs) are heavy, and a running stack does not need them.
  const { startEmulators } = await import("./local/emulators.ts");
  const emulators = await startEmulators({ dataDir });
  const clients = makeClients(emulators.resources);
  return {
    kind: "local-offline",
    resources: emulators.resources,
    clients,
    close: async () => {
      destroy(clients);
      await emulators.stop();
    },
  };
}

function openAws(opts: TargetOptions): Target {
  const env = opts.env ?? process.env;
  let resources: Resources;
  if (opts.resourcesFile) {
    const file = resolve(opts.resourcesFile);
    if (!existsSync(file)) throw new TargetError(`--resources ${file}: no such file`);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      throw new TargetError(`--resources ${file}: not valid JSON (${(err as Error).message})`);
    }
    const r = resourcesFileSchema.safeParse(json);
    if (!r.success) {
      const issues = r.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`).join("; ");
      throw new TargetError(`--resources ${file}: ${issues}`);
    }
    // Region from the usual AWS environment first, as every AWS tool does; the file's region is the fallback.
    resources = {
      ...r.data,
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? r.data.region ?? "us-east-1",
    };
  } else {
    try {
      resources = resourcesFromEnv(env);
    } catch (err) {
      throw new TargetError(`${(err as Error).message}; or pass --resources FILE (the stack's outputs)`);
    }
  }
  // No endpoints: the SDK's default credential chain (AWS_PROFILE, SSO, instance roles) and endpoints apply.
  const clients = makeClients(resources);
  return { kind: "aws", resources, clients, close: async () => destroy(clients) };
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

function destroy(c: AwsClients): void {
  c.s3.destroy();
  c.sqs.destroy();
  c.dynamo.destroy();
}
