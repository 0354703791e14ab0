import { randomBytes } from "node:crypto";
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/resources.ts";
import { isConditionFailed, queryAll } from "./dynamo-util.ts";

export interface AttachmentRef {
  readonly id: string;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  /** S3 key (`files/<agent>/<id>`). */
  readonly key: string;
}

/**
 * One mail in an agent's mailbox (accepted inbound or sent outbound). Bodies live in S3 (`bodyKey`), so the item
 * stays small; refused mail never becomes a MessageRecord (its evidence stays in the inbound table + raw S3).
 */
export interface MessageRecord {
  readonly agent: string;
  /** Sort key; use `newMessageId()` so ids sort by time (listByAgent relies on it). */
  readonly id: string;
  readonly direction: "in" | "out";
  readonly threadId: string;
  /** The RFC 5322 Message-ID, without angle brackets. */
  readonly headerMessageId: string;
  readonly inReplyTo: string | null;
  readonly references: string[];
  readonly from: string;
  readonly to: string[];
  readonly cc: string[];
  readonly subject: string;
  /** ISO time: received (in) or sent (out). */
  readonly at: string;
  readonly bodyKey: string;
  /** An HTML-only mail shows no body to the model (G8). */
  readonly hasHtmlOnly: boolean;
  readonly attachments: AttachmentRef[];
  /** X-Postern-Recursion value carried (in) or stamped (out) (G5). */
  readonly hop: number;
  readonly sesMessageId?: string;
}

export type MessagePutResult = { readonly ok: true } | { readonly ok: false; readonly reason: "duplicate" };

/** A time-sortable mailbox id: `<UTC yyyymmddThhmmssmmm>-<8 random hex>`. */
export function newMessageId(at: Date = new Date()): string {
  const t = at.toISOString().replace(/[-:.Z]/g, "");
  return `${t}-${randomBytes(4).toString("hex")}`;
}

export interface MessageRepoDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
}

export class MessageRepo {
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
      if (isConditionFailed(err)) return { ok: false, reason: "duplicate" };
      throw err;
    }
  }

  async get(agent: string, id: string): Promise<MessageRecord | null> {
    const r = await this.#dynamo.send(
      new GetCommand({ TableName: this.#table, Key: { agent, id }, ConsistentRead: true }),
    );
    return (r.Item as MessageRecord | undefined) ?? null;
  }

  /** Oldest first. Scoped to one agent's partition: a thread never spans agents (G12). */
  async listByThread(agent: string, threadId: string): Promise<MessageRecord[]> {
    const items = await queryAll(this.#dynamo, {
      TableName: this.#table,
      KeyConditionExpression: "#agent = :agent",
      ExpressionAttributeNames: { "#agent": "agent" },
      FilterExpression: "threadId = :thread",
      ExpressionAttributeValues: { ":agent": agent, ":thread": threadId },
    });
    return items as unknown as MessageRecord[];
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
