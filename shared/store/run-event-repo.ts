import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/resources.ts";
import { isConditionFailed, queryAll } from "./dynamo-util.ts";

export interface RunEvent {
  readonly type: string;
  readonly at: string;
  readonly round: number;
  readonly data: Record<string, unknown>;
}

export interface StoredRunEvent extends RunEvent {
  readonly runId: string;
  readonly seq: number;
}

export type AppendResult =
  | { readonly ok: true; readonly seq: number }
  | { readonly ok: false; readonly reason: "missing-run" | "too-large" };

/** Events are the trace, not the transcript: anything bigger belongs in S3 with its key in `data`. */
export const MAX_EVENT_BYTES = 32 * 1024;

export interface RunEventRepoDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
}

/**
 * Append-only run events (the trace). The sequence number comes from an atomic counter on the run item
 * (UpdateItem ADD eventSeq), so concurrent appends never collide, and the event put is conditional so nothing
 * can overwrite an event already written.
 */
export class RunEventRepo {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #runs: string;
  readonly #events: string;

  constructor(deps: RunEventRepoDeps) {
    this.#dynamo = deps.dynamo;
    this.#runs = deps.tables.runs;
    this.#events = deps.tables.runEvents;
  }

  async append(runId: string, event: RunEvent): Promise<AppendResult> {
    if (Buffer.byteLength(JSON.stringify(event), "utf8") > MAX_EVENT_BYTES)
      return { ok: false, reason: "too-large" };
    let seq: number;
    try {
      const r = await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#runs,
          Key: { runId },
          UpdateExpression: "ADD eventSeq :one",
          ConditionExpression: "attribute_exists(runId)",
          ExpressionAttributeValues: { ":one": 1 },
          ReturnValues: "UPDATED_NEW",
        }),
      );
      seq = Number(r.Attributes?.eventSeq);
    } catch (err) {
      if (isConditionFailed(err)) return { ok: false, reason: "missing-run" };
      throw err;
    }
    // The counter makes seq unique; the condition is the guard that would catch a counter reset (a bug).
    await this.#dynamo.send(
      new PutCommand({
        TableName: this.#events,
        Item: { ...event, runId, seq },
        ConditionExpression: "attribute_not_exists(seq)",
      }),
    );
    return { ok: true, seq };
  }

  /** In order of `seq`. */
  async list(runId: string): Promise<StoredRunEvent[]> {
    const items = await queryAll(this.#dynamo, {
      TableName: this.#events,
      KeyConditionExpression: "runId = :r",
      ExpressionAttributeValues: { ":r": runId },
      ConsistentRead: true,
    });
    return items as unknown as StoredRunEvent[];
  }
}
