import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import { TABLES } from "../config/index.ts";
import {
  type IndexReader,
  type MessageRecord,
  type Page,
  type PageRequest,
  type PlanRecord,
  type PlanState,
  planFromItem,
  type RefusalRecord,
  type RunRecord,
  type ThreadRecord,
} from "../ports/index.ts";
import { clampLimit, decodeCursor, encodeCursor, queryPage } from "./page.ts";

export interface IndexReadDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
}

const INDEX = {
  runs: TABLES.runs.indexes[0],
  threads: TABLES.threads.indexes[0],
  messages: TABLES.messages.indexes[0],
  inbound: TABLES.inbound.indexes[0],
  state: TABLES.state.indexes[0],
} as const;

/** A plan as listed: the stored plan, keyed by its run. */
export type PlanListItem = PlanRecord;

/**
 * The console's paged lists, each one Query on an index of shared/config/tables.ts: no page view scans a runtime
 * table, however large it grows. Cursors are the index's LastEvaluatedKey, checked on the way back in.
 */
export class IndexReads implements IndexReader {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #tables: Resources["tables"];

  constructor(deps: IndexReadDeps) {
    this.#dynamo = deps.dynamo;
    this.#tables = deps.tables;
  }

  /** An agent's runs, newest first. */
  async runsByAgent(agent: string, req: PageRequest): Promise<Page<RunRecord>> {
    const ix = INDEX.runs;
    const keys = [ix.partitionKey, ix.sortKey, "runId"];
    const start = decodeCursor(req.cursor, keys, { agent });
    const { items, last } = await queryPage(
      this.#dynamo,
      {
        TableName: this.#tables.runs,
        IndexName: ix.name,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": ix.partitionKey },
        ExpressionAttributeValues: { ":pk": agent },
        ScanIndexForward: false,
      },
      { limit: clampLimit(req.limit), start, keys },
    );
    return { items: items as unknown as RunRecord[], next: last ? encodeCursor(last) : null };
  }

  /** An agent's threads, most recently active first. */
  async threadsByActivity(agent: string, req: PageRequest): Promise<Page<ThreadRecord>> {
    const ix = INDEX.threads;
    const keys = ["agent", "threadId", ix.sortKey];
    const start = decodeCursor(req.cursor, keys, { agent });
    const { items, last } = await queryPage(
      this.#dynamo,
      {
        TableName: this.#tables.threads,
        IndexName: ix.name,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": ix.partitionKey },
        ExpressionAttributeValues: { ":pk": agent },
        ScanIndexForward: false,
      },
      { limit: clampLimit(req.limit), start, keys },
    );
    return { items: items as unknown as ThreadRecord[], next: last ? encodeCursor(last) : null };
  }

  /**
   * A thread's messages, oldest first, scoped to the agent's own mailbox (G12: a thread never spans agents, and
   * the filter keeps a thread id that collided across agents from showing another agent's mail).
   */
  async threadMessages(agent: string, threadId: string, req: PageRequest): Promise<Page<MessageRecord>> {
    const ix = INDEX.messages;
    const keys = ["agent", "id", ix.partitionKey];
    const start = decodeCursor(req.cursor, keys, { threadId });
    const { items, last } = await queryPage(
      this.#dynamo,
      {
        TableName: this.#tables.messages,
        IndexName: ix.name,
        KeyConditionExpression: "#pk = :pk",
        FilterExpression: "#agent = :agent",
        ExpressionAttributeNames: { "#pk": ix.partitionKey, "#agent": "agent" },
        ExpressionAttributeValues: { ":pk": threadId, ":agent": agent },
        ScanIndexForward: true,
      },
      { limit: clampLimit(req.limit), start, keys },
    );
    return { items: items as unknown as MessageRecord[], next: last ? encodeCursor(last) : null };
  }

  /**
   * Refused and dropped mail, newest first, optionally one reason code only. Walks the per-day partitions back
   * from `today` for at most `days` days; the cursor carries the day it stopped in.
   */
  async refusals(
    req: PageRequest & { reason?: string | undefined; today: Date; days?: number },
  ): Promise<Page<RefusalRecord>> {
    const limit = clampLimit(req.limit);
    const cursor = parseRefusalCursor(req.cursor);
    const oldest = dayOf(new Date(req.today.getTime() - ((req.days ?? 90) - 1) * 86_400_000));
    let start: Record<string, unknown> | undefined = cursor?.key;
    const out: RefusalRecord[] = [];
    // Day by day, newest first, until the page is full and one more refusal is known to exist (then there is a
    // next page), or the window ends (then there is none). A next page is never empty. Bounded: at most one Query
    // per day of the window (90), which only a page of a rare reason in a quiet quarter comes near.
    for (
      let day = cursor?.day ?? dayOf(req.today);
      day >= oldest;
      day = previousDay(day), start = undefined
    ) {
      const room = limit - out.length;
      const { items, last } = await this.#refusalsOn(day, req.reason, Math.max(room, 1), start);
      if (room === 0) {
        if (items.length > 0 || last) return { items: out, next: encodeRefusalCursor(day, start) };
        continue;
      }
      out.push(...(items as unknown as RefusalRecord[]));
      // More in this day (queryPage looked one beyond), or the call budget ran out inside it: continue there.
      if (last) return { items: out, next: encodeRefusalCursor(day, last) };
    }
    return { items: out, next: null };
  }

  #refusalsOn(
    day: string,
    reason: string | undefined,
    limit: number,
    start: Record<string, unknown> | undefined,
  ) {
    const ix = INDEX.inbound;
    return queryPage(
      this.#dynamo,
      {
        TableName: this.#tables.inbound,
        IndexName: ix.name,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": ix.partitionKey, ...(reason ? { "#reason": "reason" } : {}) },
        ExpressionAttributeValues: { ":pk": day, ...(reason ? { ":reason": reason } : {}) },
        ...(reason ? { FilterExpression: "#reason = :reason" } : {}),
        ScanIndexForward: false,
      },
      { limit, start, keys: REFUSAL_KEYS },
    );
  }

  /** Plans in one state (pending: waiting for an approver), newest first. */
  async plansByState(state: PlanState, req: PageRequest): Promise<Page<PlanListItem>> {
    const ix = INDEX.state;
    const keys = ["pk", "sk", ix.partitionKey, ix.sortKey];
    const start = decodeCursor(req.cursor, keys, { planState: state });
    const { items, last } = await queryPage(
      this.#dynamo,
      {
        TableName: this.#tables.state,
        IndexName: ix.name,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": ix.partitionKey },
        ExpressionAttributeValues: { ":pk": state },
        ScanIndexForward: false,
      },
      { limit: clampLimit(req.limit), start, keys },
    );
    const plans = items.map((i) => planFromItem(String(i.pk).replace(/^plan#/, ""), i));
    return { items: plans, next: last ? encodeCursor(last) : null };
  }
}

const dayOf = (d: Date): string => d.toISOString().slice(0, 10);
const previousDay = (day: string): string => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000));
const REFUSAL_KEYS = ["sesMessageId", "recipient", INDEX.inbound.partitionKey, INDEX.inbound.sortKey];

function encodeRefusalCursor(day: string, key?: Record<string, unknown>): string {
  return encodeCursor({ day, ...(key ? { key: encodeCursor(key) } : {}) });
}

function parseRefusalCursor(
  cursor: string | undefined,
): { day: string; key: Record<string, string> | undefined } | undefined {
  if (!cursor || cursor.length > 4096) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const day = (v as { day?: unknown })?.day;
  if (typeof day !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const raw = (v as { key?: unknown }).key;
  const key = typeof raw === "string" ? decodeCursor(raw, REFUSAL_KEYS, { refusalDay: day }) : undefined;
  return { day, key };
}
