import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  type AttributeValue,
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  ScanCommand,
  waitUntilTableExists,
  waitUntilTableNotExists,
} from "@aws-sdk/client-dynamodb";
import { SQSClient } from "@aws-sdk/client-sqs";
import dynalite from "dynalite";
import type { FauxqsServer } from "fauxqs";
import type { Resources } from "../../shared/config/index.ts";
import { TABLE_KEYS, TABLES, type TableKey, type TableSpec } from "../../shared/config/index.ts";
import { DEFAULT_POLICY, maxReceivesFor } from "../../shared/webhooks/index.ts";
import { ensureQueue } from "./emulator-queues.ts";
import { LOOPBACK, startLoopbackFauxqs } from "./fauxqs-loopback.ts";

/**
 * The in-process AWS emulators behind the local stack and the integration tests: fauxqs (S3, SQS, SNS) and
 * dynalite (DynamoDB). Real SDK clients talk to them over loopback HTTP, so the adapters under test are the ones
 * that run in Lambda. With a `dataDir` the state persists (fauxqs in SQLite, dynalite in LevelDB), and both write
 * a change before they answer the call that made it: whatever an emulator acknowledged survives the process being
 * killed (a power cut is another matter: dynalite does not sync to disk). docs/local-stack.md says what is
 * durable when.
 */
export interface Emulators {
  readonly resources: Resources;
  readonly fauxqs: FauxqsServer;
  /** ARN of the SNS topic standing in for the SES receipt rule's notification topic. */
  readonly intakeTopicArn: string;
  readonly intakeTopic: string;
  stop(): Promise<void>;
}

export interface EmulatorOptions {
  /** Persist state here; omit for in-memory (tests). */
  readonly dataDir?: string;
  readonly region?: string;
  /** 0 (default) picks free ports. */
  readonly awsPort?: number;
  readonly dynamoPort?: number;
  /** Queue redrive: receives before a message moves to its DLQ (Lambda's maxReceiveCount). */
  readonly maxReceiveCount?: number;
  /** Visibility timeout in seconds for the work queues. */
  readonly visibilityTimeout?: number;
}

export const QUEUE_NAMES = {
  verify: "postern-verify",
  agentStep: "postern-agent-step",
  outbound: "postern-outbound",
  events: "postern-events",
} as const;

/**
 * The events queue's redrive is a backstop only: the worker counts attempts itself and moves spent events to the
 * DLQ, and a breaker's wait re-sends the delivery rather than spending receives (shared/webhooks/sqs-handler.ts).
 * Derived from the deployed schedule, as CDK sets it.
 */
export const EVENTS_MAX_RECEIVE_COUNT = maxReceivesFor(DEFAULT_POLICY);
export const BUCKET_NAME = "postern-mail";
export const INTAKE_TOPIC = "postern-ses-intake";
export const tableName = (key: TableKey): string => `postern-${key}`;

export async function startEmulators(opts: EmulatorOptions = {}): Promise<Emulators> {
  const region = opts.region ?? "us-east-1";
  if (opts.dataDir) mkdirSync(join(opts.dataDir, "dynamodb"), { recursive: true });
  // Loopback only: the bucket holds raw mail and the queues take any message.
  const fauxqs = await startLoopbackFauxqs({
    port: opts.awsPort ?? 0,
    logger: false,
    defaultRegion: region,
    ...(opts.dataDir ? { dataDir: join(opts.dataDir, "aws") } : {}),
  });
  const dynamo = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(opts.dataDir ? { path: join(opts.dataDir, "dynamodb") } : {}),
  });
  try {
    await listen(dynamo, opts.dynamoPort ?? 0);
    const dynamoEndpoint = `http://${LOOPBACK}:${(dynamo.address() as AddressInfo).port}`;
    await createTables(dynamoEndpoint, region, opts.dataDir);

    const maxReceiveCount = String(opts.maxReceiveCount ?? 3);
    const visibility = String(opts.visibilityTimeout ?? 30);
    const queues = {} as Record<keyof typeof QUEUE_NAMES | "eventsDeadLetter", string>;
    const sqs = localSqsClient(fauxqs.address, region);
    try {
      for (const [key, name] of Object.entries(QUEUE_NAMES) as [keyof typeof QUEUE_NAMES, string][]) {
        // ensureQueue, never fauxqs.createQueue: a persisted queue keeps the mail still in it.
        const dlq = await ensureQueue(fauxqs, sqs, `${name}-dlq`, region, {
          MessageRetentionPeriod: "1209600",
        });
        const q = await ensureQueue(fauxqs, sqs, name, region, {
          VisibilityTimeout: visibility,
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: dlq.queueArn,
            maxReceiveCount: key === "events" ? String(EVENTS_MAX_RECEIVE_COUNT) : maxReceiveCount,
          }),
        });
        queues[key] = q.queueUrl;
        if (key === "events") queues.eventsDeadLetter = dlq.queueUrl;
      }
    } finally {
      sqs.destroy();
    }
    fauxqs.createBucket(BUCKET_NAME);
    const { topicArn } = fauxqs.createTopic(INTAKE_TOPIC, { region });
    // As in AWS: SES publishes its receipt notification to SNS, which delivers the raw JSON to the verify queue.
    fauxqs.subscribe({
      topic: INTAKE_TOPIC,
      queue: QUEUE_NAMES.verify,
      region,
      attributes: { RawMessageDelivery: "true" },
    });

    const resources: Resources = {
      region,
      tables: Object.fromEntries(TABLE_KEYS.map((k) => [k, tableName(k)])) as Record<TableKey, string>,
      bucket: BUCKET_NAME,
      queues,
      endpoints: { s3: fauxqs.address, sqs: fauxqs.address, dynamodb: dynamoEndpoint },
    };
    return {
      resources,
      fauxqs,
      intakeTopicArn: topicArn,
      intakeTopic: INTAKE_TOPIC,
      async stop() {
        await fauxqs.stop();
        await new Promise<void>((res) => dynamo.close(() => res()));
      },
    };
  } catch (err) {
    await fauxqs.stop();
    dynamo.close();
    throw err;
  }
}

/** For the emulators' own setup calls; the stack's and the functions' clients come from makeClients. */
function localSqsClient(endpoint: string, region: string): SQSClient {
  return new SQSClient({ region, endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((res, rej) => {
    server.once("error", rej);
    server.listen(port, LOOPBACK, () => res());
  });
}

/**
 * The SDK's table waiters for dynalite: it makes a table ACTIVE on its next tick (createTableMs 0), but the waiter's
 * first check can still see CREATING and then sleeps its minimum delay, 1 s and more with jitter (measured: a start
 * took 50 ms or 1 to 4 s at random, a large share of the test suite's wall time). Poll every 10 to 100 ms instead.
 */
const localWaiter = (client: DynamoDBClient) => ({ client, maxWaitTime: 10, minDelay: 0.01, maxDelay: 0.1 });

/**
 * Create every table of TABLES that does not exist yet (idempotent, so a persisted stack restarts cleanly), with
 * its indexes. A persisted table created before an index existed is rebuilt with it (dynalite cannot add an index
 * to an existing table): its items are read, kept in `<backupDir>/<table>.migrating.json` until the copy is back.
 */
export async function createTables(endpoint: string, region: string, backupDir?: string): Promise<void> {
  const client = new DynamoDBClient({
    region,
    endpoint,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  try {
    const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
    for (const key of TABLE_KEYS) {
      const name = tableName(key);
      const spec: TableSpec = TABLES[key];
      if (existing.has(name)) {
        await addMissingIndexes(client, name, spec, backupDir);
        continue;
      }
      await client.send(new CreateTableCommand(tableInput(name, spec)));
      await waitUntilTableExists(localWaiter(client), { TableName: name });
    }
  } finally {
    client.destroy();
  }
}

function tableInput(name: string, spec: TableSpec): CreateTableCommandInput {
  const attrs = new Map<string, "S" | "N">([[spec.partitionKey, "S"]]);
  if (spec.sortKey) attrs.set(spec.sortKey, spec.sortType ?? "S");
  for (const ix of spec.indexes ?? []) {
    if (!attrs.has(ix.partitionKey)) attrs.set(ix.partitionKey, "S");
    if (!attrs.has(ix.sortKey)) attrs.set(ix.sortKey, "S");
  }
  return {
    TableName: name,
    BillingMode: "PAY_PER_REQUEST",
    KeySchema: [
      { AttributeName: spec.partitionKey, KeyType: "HASH" },
      ...(spec.sortKey ? [{ AttributeName: spec.sortKey, KeyType: "RANGE" as const }] : []),
    ],
    AttributeDefinitions: [...attrs].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType,
    })),
    ...(spec.indexes?.length
      ? {
          GlobalSecondaryIndexes: spec.indexes.map((ix) => ({
            IndexName: ix.name,
            KeySchema: [
              { AttributeName: ix.partitionKey, KeyType: "HASH" as const },
              { AttributeName: ix.sortKey, KeyType: "RANGE" as const },
            ],
            Projection: { ProjectionType: "ALL" as const },
          })),
        }
      : {}),
  };
}

async function addMissingIndexes(
  client: DynamoDBClient,
  name: string,
  spec: TableSpec,
  backupDir: string | undefined,
): Promise<void> {
  const wanted = (spec.indexes ?? []).map((i) => i.name);
  if (wanted.length === 0) return;
  const d = await client.send(new DescribeTableCommand({ TableName: name }));
  const have = new Set((d.Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
  if (wanted.every((w) => have.has(w))) return;
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: name, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  const backup = backupDir ? join(backupDir, `${name}.migrating.json`) : undefined;
  if (backup) writeFileSync(backup, JSON.stringify(items));
  await client.send(new DeleteTableCommand({ TableName: name }));
  await waitUntilTableNotExists(localWaiter(client), { TableName: name });
  await client.send(new CreateTableCommand(tableInput(name, spec)));
  await waitUntilTableExists(localWaiter(client), { TableName: name });
  for (const item of items) await client.send(new PutItemCommand({ TableName: name, Item: item }));
  if (backup) rmSync(backup, { force: true });
}
