import { randomBytes } from "node:crypto";
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import type { MessagePutResult, MessageRecord, MessageStore } from "../ports/index.ts";
import { fail } from "../result.ts";
import { isConditionFailed, queryAll } from "./dynamo-util.ts";

/** The messages table's thread index (shared/config/tables.ts): threadId → message ids in time order. */
const MESSAGES_BY_THREAD = "byThread";

/** A time-sortable mailbox id: `<UTC yyyymmddThhmmssmmm>-<8 random hex>`. */
export function newMessageId(at: Date = new Date()): string {
  const t = at.toISOString().replace(/[-:.Z]/g, "");
  return `${t}-${randomBytes(4).toString("hex")}`;
}

export interface MessageRepoDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
}

export class MessageRepo implements MessageStore {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(deps: MessageRepoDeps) {
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.messages;
  }

  /** Conditional: a redelivered step that stores the same message twice gets `duplicate`, not a second copy. */
  async put(msg: MessageRecord): Promise<MessagePutResult> {
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.#table,
          Item: msg,
          ConditionExpression: "attribute_not_exists(id)",
        }),
      );
      return { ok: true };
    } catch (err) {
      if (isConditionFailed(err)) return fail("duplicate");
      throw err;
    }
  }

  async get(agent: string, id: string): Promise<MessageRecord | null> {
    const r = await this.#dynamo.send(
      new GetCommand({ TableName: this.#table, Key: { agent, id }, ConsistentRead: true }),
    );
    return (r.Item as MessageRecord | undefined) ?? null;
  }

  /**
   * Oldest first; with `newest`, only the thread's newest N (still oldest first). Through the `byThread` index, so
   * a run reads its thread, not the agent's whole archive (1,559 read units at 30,000 archived messages
   * through a filtered partition query). The index is eventually consistent: a message written a moment ago may
   * be missing, which thread memory tolerates (the run's own message is read by key). Filtered to the agent: a
   * thread never spans agents (G12).
   */
  async listByThread(
    agent: string,
    threadId: string,
    opts: { newest?: number } = {},
  ): Promise<MessageRecord[]> {
    const items = await queryAll(
      this.#dynamo,
      {
        TableName: this.#table,
        IndexName: MESSAGES_BY_THREAD,
        KeyConditionExpression: "threadId = :thread",
        FilterExpression: "#agent = :agent",
        ExpressionAttributeNames: { "#agent": "agent" },
        ExpressionAttributeValues: { ":agent": agent, ":thread": threadId },
        ScanIndexForward: opts.newest === undefined,
      },
      opts.newest,
    );
    return (opts.newest === undefined ? items : items.reverse()) as unknown as MessageRecord[];
  }

  /** Newest first (by id, which `newMessageId` makes time-ordered). */
  async listByAgent(agent: string, opts: { limit?: number } = {}): Promise<MessageRecord[]> {
    const items = await queryAll(
      this.#dynamo,
      {
        TableName: this.#table,
        KeyConditionExpression: "#agent = :agent",
        ExpressionAttributeNames: { "#agent": "agent" },
        ExpressionAttributeValues: { ":agent": agent },
        ScanIndexForward: false,
      },
      opts.limit,
    );
    return items as unknown as MessageRecord[];
  }
}
