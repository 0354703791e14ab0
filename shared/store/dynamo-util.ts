import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { QueryCommand, type QueryCommandInput, ScanCommand } from "@aws-sdk/lib-dynamodb";

import type { Item } from "../ports/index.ts";

/**
 * The one DynamoDB error every repository expects: a failed condition is a domain outcome (duplicate, conflict),
 * never a crash. Everything else is rethrown by the caller untouched (as Powertools' DynamoDBPersistenceLayer does).
 */
export function isConditionFailed(err: unknown): boolean {
  return err instanceof Error && err.name === "ConditionalCheckFailedException";
}

/** Every item of a table, following pagination. Admin tables are small; runtime scans are for local tooling. */
export async function scanAll(dynamo: DynamoDBDocumentClient, table: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
    items.push(...((page.Items ?? []) as Item[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** A query followed across pages, up to `limit` items when given. */
export async function queryAll(
  dynamo: DynamoDBDocumentClient,
  input: QueryCommandInput,
  limit?: number,
): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        ...input,
        ExclusiveStartKey: start,
        ...(limit !== undefined ? { Limit: limit - items.length } : {}),
      }),
    );
    items.push(...((page.Items ?? []) as Item[]));
    start = page.LastEvaluatedKey;
  } while (start && (limit === undefined || items.length < limit));
  return items;
}
