import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type Resources, STATE_KEYS } from "../config/index.ts";
import { isConditionFailed, queryAll } from "../store/index.ts";
import { CLOSED } from "./breaker.ts";
import type { AttemptCounter, BreakerStore, DeliveryEntry, DeliveryLog } from "./ports.ts";

/**
 * The worker's state in the `state` table, three item families:
 * - `webhook-deliveries#<endpoint>` / `<ISO time>#<event id>#<attempt>`: the deliveries record, kept 30 days;
 * - `webhook-attempts#<endpoint>` / `<event id>`: an atomic attempt counter, kept past the longest retry schedule;
 * - `webhook-breaker` / `<endpoint>`: the endpoint's breaker.
 */
export const DELIVERY_RECORD_DAYS = 30;
const ATTEMPTS_TTL_SECONDS = 7 * 24 * 3600;

export const deliveriesPk = STATE_KEYS.webhookDeliveries;

interface StateDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
  readonly clock?: () => Date;
}

/** The table and the clock each item family writes with. */
function stateTable(deps: StateDeps) {
  return {
    TableName: deps.tables.state,
    epoch: () => Math.floor((deps.clock ?? (() => new Date()))().getTime() / 1000),
  };
}

export function dynamoWebhookState(deps: StateDeps): {
  readonly log: DeliveryLog;
  readonly attempts: AttemptCounter;
  readonly breaker: BreakerStore;
} {
  return { log: deliveryLog(deps), attempts: attemptCounter(deps), breaker: breakerStore(deps) };
}

function deliveryLog(deps: StateDeps): DeliveryLog {
  const { TableName, epoch } = stateTable(deps);
  return {
    async record(endpointId, entry) {
      await deps.dynamo.send(
        new PutCommand({
          TableName,
          Item: {
            ...entry,
            pk: deliveriesPk(endpointId),
            sk: `${entry.at}#${entry.eventId}#${entry.attempt}#${entry.outcome}`,
            expiresAt: epoch() + DELIVERY_RECORD_DAYS * 24 * 3600,
          },
        }),
      );
    },
    async recent(endpointId, limit) {
      const items = await queryAll(
        deps.dynamo,
        {
          TableName,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": deliveriesPk(endpointId) },
          ScanIndexForward: false,
        },
        limit,
      );
      return items.map(({ pk: _p, sk: _s, expiresAt: _e, ...entry }) => entry as unknown as DeliveryEntry);
    },
  };
}

function attemptCounter(deps: StateDeps): AttemptCounter {
  const { TableName, epoch } = stateTable(deps);
  return {
    async next(endpointId, eventId) {
      const r = await deps.dynamo.send(
        new UpdateCommand({
          TableName,
          Key: { pk: STATE_KEYS.webhookAttempts(endpointId), sk: eventId },
          UpdateExpression: "ADD #n :one SET expiresAt = if_not_exists(expiresAt, :exp)",
          ExpressionAttributeNames: { "#n": "attempts" },
          ExpressionAttributeValues: { ":one": 1, ":exp": epoch() + ATTEMPTS_TTL_SECONDS },
          ReturnValues: "UPDATED_NEW",
        }),
      );
      return Number(r.Attributes?.attempts ?? 1);
    },
  };
}

function breakerStore(deps: StateDeps): BreakerStore {
  const { TableName } = stateTable(deps);
  return {
    async get(endpointId) {
      const r = await deps.dynamo.send(
        new GetCommand({
          TableName,
          Key: { pk: STATE_KEYS.webhookBreaker, sk: endpointId },
          ConsistentRead: true,
        }),
      );
      if (!r.Item) return CLOSED;
      const failures = Number(r.Item.failures ?? 0);
      const openUntil = typeof r.Item.openUntil === "string" ? r.Item.openUntil : undefined;
      return openUntil ? { failures, openUntil } : { failures };
    },
    async close(endpointId) {
      await deps.dynamo.send(
        new PutCommand({ TableName, Item: { pk: STATE_KEYS.webhookBreaker, sk: endpointId, failures: 0 } }),
      );
    },
    // ADD is atomic: two workers failing at once count two failures.
    async countFailure(endpointId) {
      const r = await deps.dynamo.send(
        new UpdateCommand({
          TableName,
          Key: { pk: STATE_KEYS.webhookBreaker, sk: endpointId },
          UpdateExpression: "ADD failures :one",
          ExpressionAttributeValues: { ":one": 1 },
          ReturnValues: "UPDATED_NEW",
        }),
      );
      return Number(r.Attributes?.failures ?? 1);
    },
    // One UpdateItem is atomic and UPDATED_OLD returns what it replaced: only the write that found no
    // `openUntil` opened the breaker.
    async open(endpointId, until) {
      const r = await deps.dynamo.send(
        new UpdateCommand({
          TableName,
          Key: { pk: STATE_KEYS.webhookBreaker, sk: endpointId },
          UpdateExpression: "SET openUntil = :until",
          ExpressionAttributeValues: { ":until": until },
          ReturnValues: "UPDATED_OLD",
        }),
      );
      return r.Attributes?.openUntil === undefined;
    },
    // A conditional update: of the deliveries that wake after the cool-down, one moves `openUntil` and probes.
    async claimProbe(endpointId, seen, until) {
      try {
        await deps.dynamo.send(
          new UpdateCommand({
            TableName,
            Key: { pk: STATE_KEYS.webhookBreaker, sk: endpointId },
            UpdateExpression: "SET openUntil = :until",
            ConditionExpression: "openUntil = :seen",
            ExpressionAttributeValues: { ":until": until, ":seen": seen },
          }),
        );
        return true;
      } catch (err) {
        if (isConditionFailed(err)) return false;
        throw err;
      }
    },
  };
}
