import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import { deliveryEventsPk, type SendOutcome, type SendOutcomeReader } from "../ports/index.ts";
import { queryAll } from "./dynamo-util.ts";

/**
 * An agent's delivery events (bounces, complaints, rejects, delivery delays) as the delivery-events
 * function recorded them in the state table: one Query of the agent's partition, newest first.
 */
export class SendOutcomeReads implements SendOutcomeReader {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(deps: { readonly dynamo: DynamoDBDocumentClient; readonly tables: Resources["tables"] }) {
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.state;
  }

  async recent(agent: string, limit: number): Promise<SendOutcome[]> {
    const items = await queryAll(
      this.#dynamo,
      {
        TableName: this.#table,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": deliveryEventsPk(agent) },
        ScanIndexForward: false,
      },
      limit,
    );
    return items.flatMap((item) => {
      try {
        return [JSON.parse(String(item.event)) as SendOutcome];
      } catch {
        return [];
      }
    });
  }
}
