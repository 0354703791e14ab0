import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type { RoundClaim, RoundLedger } from "../agent/ports.ts";
import type { Resources } from "../config/index.ts";
import { isConditionFailed } from "./dynamo-util.ts";

const ROUND_PREFIX = "round#";

/** Round progress lives 30 days: long enough to answer any redelivery, short enough to clean itself up. */
const TTL_SECONDS = 30 * 24 * 3600;

/**
 * Per-round claims with a lease, in the `state` table (pk `round#<runId>`, sk `<round>`). A redelivery while the
 * holder still works gets `busy` (SQS retries later); after a crash the lease expires and the next delivery takes
 * over and resumes where the transcript says the round got to. Every write is one conditional item write.
 */
export class DynamoRoundLedger implements RoundLedger {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #now: () => number;

  constructor(deps: { dynamo: DynamoDBDocumentClient; tables: Resources["tables"]; now?: () => number }) {
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.state;
    this.#now = deps.now ?? Date.now;
  }

  async claim(runId: string, round: number, leaseMs: number): Promise<RoundClaim> {
    const key = { pk: `${ROUND_PREFIX}${runId}`, sk: String(round) };
    const now = this.#now();
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.#table,
          Item: {
            ...key,
            state: "new",
            leaseUntil: now + leaseMs,
            expiresAt: Math.floor(now / 1000) + TTL_SECONDS,
          },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return { status: "claimed", first: true };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
    const current = (
      await this.#dynamo.send(new GetCommand({ TableName: this.#table, Key: key, ConsistentRead: true }))
    ).Item;
    if (!current) return { status: "busy" };
    if (current.state === "done") return { status: "done" };
    if (typeof current.leaseUntil === "number" && current.leaseUntil > now) return { status: "busy" };
    try {
      // Take over an expired lease; the condition on the old lease lets only one of two racing deliveries win.
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: key,
          UpdateExpression: "SET leaseUntil = :lease",
          ConditionExpression: "leaseUntil = :old AND #state <> :done",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ":lease": now + leaseMs, ":old": current.leaseUntil, ":done": "done" },
        }),
      );
    } catch (err) {
      if (isConditionFailed(err)) return { status: "busy" };
      throw err;
    }
    return { status: "claimed", first: false };
  }

  async release(runId: string, round: number): Promise<void> {
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { pk: `${ROUND_PREFIX}${runId}`, sk: String(round) },
          UpdateExpression: "SET leaseUntil = :zero",
          ConditionExpression: "attribute_exists(pk) AND #state <> :done",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ":zero": 0, ":done": "done" },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  /**
   * Release every round whose lease still runs, and say how many. Only for a caller that knows no holder is alive:
   * the local stack at start, whose killed predecessor's leases would otherwise turn every redelivery of its
   * rounds into `busy` until the last one fails the run. A scan of the state table: never on a per-mail path.
   */
  async releaseAll(): Promise<number> {
    let released = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.#dynamo.send(
        new ScanCommand({
          TableName: this.#table,
          FilterExpression: "begins_with(pk, :round) AND #state <> :done AND leaseUntil > :now",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ":round": ROUND_PREFIX, ":done": "done", ":now": this.#now() },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        await this.release(String(item.pk).slice(ROUND_PREFIX.length), Number(item.sk));
        released++;
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return released;
  }

  async markDone(runId: string, round: number): Promise<void> {
    await this.#dynamo.send(
      new UpdateCommand({
        TableName: this.#table,
        Key: { pk: `${ROUND_PREFIX}${runId}`, sk: String(round) },
        UpdateExpression: "SET #state = :done",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":done": "done" },
      }),
    );
  }
}
