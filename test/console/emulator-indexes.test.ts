import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  waitUntilTableExists,
  waitUntilTableNotExists,
} from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulators } from "../../cli/local/emulators.ts";
import { makeClients } from "../../shared/aws/clients.ts";
import { IndexReads } from "../../shared/store/index-reads.ts";

const dir = mkdtempSync(join(tmpdir(), "postern-ix-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a persisted local stack from before the console's indexes", () => {
  it("gets them at the next start, with its items kept", async () => {
    // A data directory whose runs table was created before the byAgent index existed.
    const first = await startEmulators({ dataDir: dir });
    const raw = new DynamoDBClient({
      region: "us-east-1",
      endpoint: first.resources.endpoints?.dynamodb ?? "",
      credentials: { accessKeyId: "l", secretAccessKey: "l" },
    });
    const name = first.resources.tables.runs;
    await raw.send(new DeleteTableCommand({ TableName: name }));
    await waitUntilTableNotExists({ client: raw, maxWaitTime: 10, minDelay: 1 }, { TableName: name });
    await raw.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: "PAY_PER_REQUEST",
        KeySchema: [{ AttributeName: "runId", KeyType: "HASH" }],
        AttributeDefinitions: [{ AttributeName: "runId", AttributeType: "S" }],
      }),
    );
    // Creation is asynchronous in dynalite too: a put before the table is ACTIVE is "not found" on a busy machine.
    await waitUntilTableExists({ client: raw, maxWaitTime: 10, minDelay: 1 }, { TableName: name });
    await raw.send(
      new PutItemCommand({
        TableName: name,
        Item: {
          runId: { S: "old-run" },
          agent: { S: "a@x.example" },
          createdAt: { S: "2026-01-01T00:00:00Z" },
        },
      }),
    );
    raw.destroy();
    await first.stop();

    const second = await startEmulators({ dataDir: dir });
    try {
      const clients = makeClients(second.resources);
      const d = await clients.dynamo.send(new DescribeTableCommand({ TableName: name }));
      expect(d.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(["byAgent"]);
      const page = await new IndexReads({
        dynamo: clients.dynamo,
        tables: second.resources.tables,
      }).runsByAgent("a@x.example", { limit: 5 });
      expect(page.items.map((r) => r.runId)).toEqual(["old-run"]);
      clients.dynamo.destroy();
    } finally {
      await second.stop();
    }
  });
});
