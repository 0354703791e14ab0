import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import type { Item, KeyValueState, PutIfAbsentResult } from "../ports/index.ts";
import { type Fail, fail, failWith, type Ok } from "../result.ts";
import { isConditionFailed } from "./dynamo-util.ts";

export interface StateRepoDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
  readonly now?: () => Date;
}

export type TransitionResult = Ok | Fail<"missing"> | Fail<"conflict", { readonly state: unknown }>;
export type IncrementResult =
  | { readonly ok: true; readonly value: number }
  | Fail<"limit-reached", { readonly value: number }>;

/** Attribute names used by this repository inside `state` items. */
export const STATE_ATTR = { state: "state", value: "value", expiresAt: "expiresAt" } as const;

/**
 * Small conditional items in the `state` table: idempotency keys, send state machines, budget counters.
 * Single-item conditional writes only (dynalite has no transactions). DynamoDB TTL deletes expired items only
 * eventually (and dynalite never), so an expired item is treated as absent here rather than trusted to be gone.
 */
export class StateRepo implements KeyValueState {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #now: () => Date;

  constructor(deps: StateRepoDeps) {
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.state;
    this.#now = deps.now ?? (() => new Date());
  }

  #epoch(): number {
    return Math.floor(this.#now().getTime() / 1000);
  }

  async putIfAbsent(
    pk: string,
    sk: string,
    attrs: Item = {},
    ttlSeconds?: number,
  ): Promise<PutIfAbsentResult> {
    const now = this.#epoch();
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.#table,
          Item: { ...attrs, pk, sk, ...(ttlSeconds ? { expiresAt: now + ttlSeconds } : {}) },
          ConditionExpression: "attribute_not_exists(pk) OR expiresAt < :now",
          ExpressionAttributeValues: { ":now": now },
        }),
      );
      return { ok: true };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return failWith("duplicate", { existing: await this.get(pk, sk) });
    }
  }

  async get(pk: string, sk: string): Promise<Item | null> {
    const r = await this.#dynamo.send(new GetCommand({ TableName: this.#table, Key: { pk, sk } }));
    const item = r.Item as Item | undefined;
    if (!item) return null;
    if (typeof item.expiresAt === "number" && item.expiresAt < this.#epoch()) return null;
    return item;
  }

  /** Move `state` from `from` to `to` (setting `attrs`), only if it is `from` now: a state machine step. */
  async transition(
    pk: string,
    sk: string,
    from: string,
    to: string,
    attrs: Item = {},
  ): Promise<TransitionResult> {
    const names: Record<string, string> = { "#state": STATE_ATTR.state };
    const values: Item = { ":from": from, ":to": to };
    const sets = ["#state = :to"];
    Object.entries(attrs).forEach(([k, v], i) => {
      if (k === "pk" || k === "sk" || k === STATE_ATTR.state)
        throw new PosternError("invalid-argument", `transition: cannot set ${k}`);
      names[`#a${i}`] = k;
      values[`:a${i}`] = v;
      sets.push(`#a${i} = :a${i}`);
    });
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { pk, sk },
          UpdateExpression: `SET ${sets.join(", ")}`,
          ConditionExpression: "attribute_exists(pk) AND #state = :from",
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return { ok: true };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      const current = await this.get(pk, sk);
      return current ? failWith("conflict", { state: current.state }) : fail("missing");
    }
  }

  /**
   * Atomic counter: add `by` unless the result would exceed `limit` (the check and the add are one conditional
   * UpdateItem, so concurrent runs cannot both squeeze under a budget). Counters are keyed by their window
   * (e.g. `budget#<agent>#2026-11-29`); `ttlSeconds` only schedules clean-up, it never resets a counter.
   */
  async increment(
    pk: string,
    sk: string,
    by: number,
    opts: { limit?: number; ttlSeconds?: number } = {},
  ): Promise<IncrementResult> {
    if (!Number.isFinite(by))
      throw new PosternError("invalid-argument", "increment: by must be a finite number");
    const { limit, ttlSeconds } = opts;
    if (limit !== undefined && by > limit) {
      return failWith("limit-reached", { value: await this.#value(pk, sk) });
    }
    const values: Item = { ":by": by };
    let update = "ADD #value :by";
    if (ttlSeconds) {
      update += " SET expiresAt = if_not_exists(expiresAt, :exp)";
      values[":exp"] = this.#epoch() + ttlSeconds;
    }
    if (limit !== undefined) values[":max"] = limit - by;
    try {
      const r = await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { pk, sk },
          UpdateExpression: update,
          ...(limit !== undefined
            ? { ConditionExpression: "attribute_not_exists(#value) OR #value <= :max" }
            : {}),
          ExpressionAttributeNames: { "#value": STATE_ATTR.value },
          ExpressionAttributeValues: values,
          ReturnValues: "UPDATED_NEW",
        }),
      );
      return { ok: true, value: Number(r.Attributes?.value ?? by) };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return failWith("limit-reached", { value: await this.#value(pk, sk) });
    }
  }

  /**
   * Several counters' values in one strongly consistent BatchGetItem (a missing counter is 0; like `increment`,
   * expiry is not looked at: counters are keyed by their window). A probe that reads instead of writing `by: 0`
   * (a conditional update costs a write unit even when it adds nothing). At most 100 keys.
   */
  async counterValues(keys: readonly { pk: string; sk: string }[]): Promise<number[]> {
    if (keys.length === 0) return [];
    if (keys.length > 100) throw new PosternError("invalid-argument", "counterValues: at most 100 keys");
    const found = new Map<string, number>();
    let request: Record<string, { Keys: Item[]; ConsistentRead: boolean }> | undefined = {
      [this.#table]: { Keys: keys.map((k) => ({ pk: k.pk, sk: k.sk })), ConsistentRead: true },
    };
    // DynamoDB may return part of a batch as UnprocessedKeys (throttling): ask again for those.
    for (let tries = 0; request && Object.keys(request).length > 0; tries++) {
      if (tries > 0) await new Promise((r) => setTimeout(r, 2 ** Math.min(tries, 6) * 10));
      const r = await this.#dynamo.send(new BatchGetCommand({ RequestItems: request }));
      for (const item of r.Responses?.[this.#table] ?? [])
        found.set(`${item.pk}\u0000${item.sk}`, Number(item[STATE_ATTR.value] ?? 0));
      request = r.UnprocessedKeys as typeof request;
    }
    return keys.map((k) => found.get(`${k.pk}\u0000${k.sk}`) ?? 0);
  }

  async #value(pk: string, sk: string): Promise<number> {
    const r = await this.#dynamo.send(new GetCommand({ TableName: this.#table, Key: { pk, sk } }));
    return Number(r.Item?.value ?? 0);
  }
}
