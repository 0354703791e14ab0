import { randomUUID } from "node:crypto";
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import { STATE_KEYS } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import {
  MAX_PARTICIPANTS_PER_MAIL,
  type RecordIdResult,
  type SentMail,
  type SentMailRef,
  type ThreadHeaders,
  type ThreadIndex,
  type ThreadReader,
  type ThreadRecord,
  type ThreadResolution,
} from "../ports/index.ts";
import { failWith } from "../result.ts";
import { isConditionFailed, queryAll } from "./dynamo-util.ts";

/** Index items in the `state` table: pk `msgid#<agent>`, sk `<message-id>` → threadId. Per agent on purpose. */
export const msgIdPk = STATE_KEYS.messageIds;

/** `<abc@x>` → `abc@x`: Message-IDs are compared without their angle brackets and surrounding space. */
export function normalizeMessageId(id: string): string {
  return id
    .trim()
    .replace(/^<(.*)>$/, "$1")
    .trim();
}

/** Sent mail looked up per inbound mail, at most: its In-Reply-To and the newest References. */
export const MAX_SENT_LOOKUP = 20;

/** A sent mail's fields on its index item; the recipients are capped like a thread's participants. */
export function sentAttributes(sent: SentMail | undefined): Record<string, unknown> {
  if (sent === undefined) return {};
  return {
    sentTo: sent.to.slice(0, MAX_PARTICIPANTS_PER_MAIL),
    sentSubject: sent.subject,
    sentAt: sent.sentAt,
  };
}

/** The sent mail an index item records, or null for an inbound mail's item (or one written before sends were). */
export function sentRef(messageId: string, item: Record<string, unknown> | undefined): SentMailRef | null {
  if (item === undefined || !Array.isArray(item.sentTo) || typeof item.sentAt !== "string") return null;
  return {
    messageId,
    threadId: String(item.threadId),
    to: item.sentTo.map(String),
    subject: typeof item.sentSubject === "string" ? item.sentSubject : "",
    sentAt: item.sentAt,
  };
}

export interface ThreadRepoDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
  readonly newId?: () => string;
}

/**
 * Threads per agent. A message joins a thread only through a Message-ID this same agent has already seen
 * (In-Reply-To / References, RFC 5322 §3.6.4): never through a subject, and never through another agent's
 * index, so a sender who learns one agent's Message-IDs cannot graft mail into another agent's conversation.
 */
export class ThreadRepo implements ThreadIndex, ThreadReader {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #threads: string;
  readonly #state: string;
  readonly #newId: () => string;

  constructor(deps: ThreadRepoDeps) {
    this.#dynamo = deps.dynamo;
    this.#threads = deps.tables.threads;
    this.#state = deps.tables.state;
    this.#newId = deps.newId ?? randomUUID;
  }

  async resolveThread(agent: string, h: ThreadHeaders): Promise<ThreadResolution> {
    // Own id first (a redelivered message keeps its thread), then the direct parent, then the nearest ancestor.
    const candidates = [h.headerMessageId, h.inReplyTo ?? "", ...[...h.references].reverse()]
      .map(normalizeMessageId)
      .filter((id, i, all) => id !== "" && all.indexOf(id) === i)
      .slice(0, 50);
    if (candidates.length > 0) {
      const found = await this.#lookup(agent, candidates);
      for (const id of candidates) {
        const threadId = found.get(id);
        if (threadId) return { threadId, isNew: false };
      }
    }
    return { threadId: this.#newId(), isNew: true };
  }

  async sentMail(agent: string, messageIds: readonly string[]): Promise<readonly SentMailRef[]> {
    const ids = [...new Set(messageIds.map(normalizeMessageId).filter((id) => id !== ""))].slice(
      0,
      MAX_SENT_LOOKUP,
    );
    if (ids.length === 0) return [];
    const items = await this.#items(agent, ids);
    const out: SentMailRef[] = [];
    for (const id of ids) {
      const ref = sentRef(id, items.get(id));
      if (ref !== null) out.push(ref);
    }
    return out;
  }

  /** Known Message-IDs of this agent among `ids` → threadId. */
  async #lookup(agent: string, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const [id, item] of await this.#items(agent, ids)) found.set(id, String(item.threadId));
    return found;
  }

  /** The index items of this agent among `ids`. BatchGet may leave keys unprocessed: retry those. */
  async #items(agent: string, ids: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    const pk = msgIdPk(agent);
    let keys: Record<string, unknown>[] | undefined = ids.map((sk) => ({ pk, sk }));
    for (let attempt = 0; keys && keys.length > 0; attempt++) {
      if (attempt === 5)
        throw new PosternError("dependency-failed", "resolveThread: BatchGet left keys unprocessed 5 times");
      const r: BatchGetCommandOutput = await this.#dynamo.send(
        new BatchGetCommand({ RequestItems: { [this.#state]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const it of r.Responses?.[this.#state] ?? []) found.set(String(it.sk), it);
      keys = r.UnprocessedKeys?.[this.#state]?.Keys;
    }
    return found;
  }

  async recordMessageId(
    agent: string,
    headerMessageId: string,
    threadId: string,
    sent?: SentMail,
  ): Promise<RecordIdResult> {
    const sk = normalizeMessageId(headerMessageId);
    if (sk === "") throw new PosternError("invalid-argument", "recordMessageId: empty Message-ID");
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.#state,
          Item: { pk: msgIdPk(agent), sk, threadId, ...sentAttributes(sent) },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return { ok: true };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      const cur = await this.#dynamo.send(
        new GetCommand({ TableName: this.#state, Key: { pk: msgIdPk(agent), sk }, ConsistentRead: true }),
      );
      return failWith("duplicate", { threadId: (cur.Item?.threadId as string | undefined) ?? null });
    }
  }

  /** Create the thread on first touch; `lastMessageAt` only moves forward (redelivery out of order is harmless). */
  async touch(agent: string, threadId: string, t: { lastMessageAt: string; subject: string }): Promise<void> {
    const base =
      "SET subject = if_not_exists(subject, :s), createdAt = if_not_exists(createdAt, :t) ADD messageCount :one";
    const values = { ":s": t.subject, ":t": t.lastMessageAt, ":one": 1 };
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#threads,
          Key: { agent, threadId },
          UpdateExpression: base.replace("SET ", "SET lastMessageAt = :t, "),
          ConditionExpression: "attribute_not_exists(lastMessageAt) OR lastMessageAt < :t",
          ExpressionAttributeValues: values,
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#threads,
          Key: { agent, threadId },
          UpdateExpression: base,
          ExpressionAttributeValues: values,
        }),
      );
    }
  }

  newThreadId(): string {
    return this.#newId();
  }

  /** Participants are a string set on the thread's own item: one UpdateItem per mail, one GetItem to check. */
  async addParticipants(agent: string, threadId: string, keys: readonly string[]): Promise<void> {
    const unique = [...new Set(keys.filter((k) => k !== ""))].slice(0, MAX_PARTICIPANTS_PER_MAIL);
    if (unique.length === 0) return;
    await this.#dynamo.send(
      new UpdateCommand({
        TableName: this.#threads,
        Key: { agent, threadId },
        UpdateExpression: "ADD participants :p",
        ExpressionAttributeValues: { ":p": new Set(unique) },
      }),
    );
  }

  async isParticipant(agent: string, threadId: string, key: string): Promise<boolean> {
    const r = await this.#dynamo.send(
      new GetCommand({
        TableName: this.#threads,
        Key: { agent, threadId },
        ProjectionExpression: "participants",
        ConsistentRead: true,
      }),
    );
    const p = r.Item?.participants;
    return p instanceof Set && p.has(key);
  }

  async get(agent: string, threadId: string): Promise<ThreadRecord | null> {
    const r = await this.#dynamo.send(new GetCommand({ TableName: this.#threads, Key: { agent, threadId } }));
    return r.Item ? summaryOf(r.Item) : null;
  }

  async listByAgent(agent: string): Promise<ThreadRecord[]> {
    const items = await queryAll(this.#dynamo, {
      TableName: this.#threads,
      KeyConditionExpression: "#agent = :agent",
      ExpressionAttributeNames: { "#agent": "agent" },
      ExpressionAttributeValues: { ":agent": agent },
    });
    return items
      .map(summaryOf)
      .filter((t) => t !== null)
      .sort((a, b) => (a.lastMessageAt < b.lastMessageAt ? 1 : -1));
  }
}

/**
 * The thread as lists and pages show it: who took part stays with the gate, not on every screen. An item with
 * participants but no message yet (intake records participants before the mail, and a crash can stop it there)
 * is not a thread anyone can see.
 */
function summaryOf(item: Record<string, unknown>): ThreadRecord | null {
  const { participants: _participants, ...summary } = item;
  return typeof summary.lastMessageAt === "string" ? (summary as unknown as ThreadRecord) : null;
}
