import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import { STATE_KEYS } from "../config/index.ts";
import {
  type PlanBook,
  type PlanRecord,
  type PlanState,
  planFromItem,
  type StoredOperation,
} from "../ports/index.ts";
import { isConditionFailed } from "./dynamo-util.ts";
import type { StateRepo } from "./state-repo.ts";

const key = (runId: string) => ({ pk: STATE_KEYS.plan(runId), sk: "plan" });
const PLAN_TTL_SECONDS = 30 * 24 * 3600;

/** Pending plans (G14) in the `state` table: one item per run, plus a code → run index item. */
export class PlanStore implements PlanBook {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #state: StateRepo;

  constructor(deps: { dynamo: DynamoDBDocumentClient; tables: Resources["tables"]; state: StateRepo }) {
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.state;
    this.#state = deps.state;
  }

  /** Append an operation while the plan is open; once per call id, so a replayed round adds nothing. */
  async add(runId: string, agent: string, op: StoredOperation): Promise<"added" | "duplicate" | "closed"> {
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: key(runId),
          UpdateExpression:
            "SET ops = list_append(if_not_exists(ops, :none), :op), opIds = list_append(if_not_exists(opIds, :none), :id), #agent = :agent, #state = if_not_exists(#state, :open), planState = if_not_exists(planState, :open), planAt = if_not_exists(planAt, :at), expiresAt = if_not_exists(expiresAt, :exp)",
          ConditionExpression:
            "(attribute_not_exists(#state) OR #state = :open) AND NOT contains(opIds, :cid)",
          ExpressionAttributeNames: { "#state": "state", "#agent": "agent" },
          ExpressionAttributeValues: {
            ":none": [],
            ":op": [op],
            ":id": [op.callId],
            ":cid": op.callId,
            ":agent": agent,
            ":open": "open",
            ":exp": Math.floor(Date.now() / 1000) + PLAN_TTL_SECONDS,
            ":at": new Date().toISOString(),
          },
        }),
      );
      return "added";
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      const current = await this.get(runId);
      return current?.ops.some((o) => o.callId === op.callId) ? "duplicate" : "closed";
    }
  }

  async get(runId: string): Promise<PlanRecord | null> {
    const r = await this.#dynamo.send(
      new GetCommand({ TableName: this.#table, Key: key(runId), ConsistentRead: true }),
    );
    if (!r.Item) return null;
    const i = r.Item;
    return planFromItem(runId, i);
  }

  /** open → pending with the card's code and the hash it is bound to; indexes the code. */
  async seal(
    runId: string,
    agent: string,
    sealed: { code: string; hash: string; expiresAtIso: string },
  ): Promise<boolean> {
    const moved = await this.#state.transition(key(runId).pk, "plan", "open", "pending", {
      ...sealed,
      planState: "pending",
    });
    if (!moved.ok) return false;
    await this.#state.putIfAbsent(
      STATE_KEYS.planCode(sealed.code),
      "plan",
      { runId, agent },
      PLAN_TTL_SECONDS,
    );
    return true;
  }

  async runForCode(code: string): Promise<{ runId: string; agent: string } | null> {
    const item = await this.#state.get(STATE_KEYS.planCode(code), "plan");
    return item ? { runId: String(item.runId), agent: String(item.agent) } : null;
  }

  /** A conditional state change: the only way a plan moves, so it is applied (or cancelled) once. */
  async move(
    runId: string,
    from: PlanState,
    to: PlanState,
    attrs: Record<string, unknown> = {},
  ): Promise<boolean> {
    // `planState` mirrors `state` for the console's plansByState index; every move goes through here or seal().
    return (await this.#state.transition(key(runId).pk, "plan", from, to, { ...attrs, planState: to })).ok;
  }
}
