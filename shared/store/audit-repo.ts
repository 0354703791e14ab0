import { randomBytes } from "node:crypto";
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import type { AuditEntry, AuditLog, NewAuditEntry, Page, PageRequest } from "../ports/index.ts";
import { clampLimit, decodeCursor, encodeCursor, queryPage } from "./page.ts";

/** Admin changes made in the console, in one partition: low volume by nature (people editing configuration). */
export const AUDIT_STREAM = "admin";

/**
 * The console's audit log. An entry is written before the change it describes and settled after it, so a change
 * is never made without a record; a crash in between leaves an entry that says `recorded`, never a silent edit.
 */
export class AuditRepo implements AuditLog {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #now: () => Date;

  constructor(deps: { dynamo: DynamoDBDocumentClient; tables: Resources["tables"]; now?: () => Date }) {
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.audit;
    this.#now = deps.now ?? (() => new Date());
  }

  async record(entry: NewAuditEntry): Promise<AuditEntry> {
    const item: AuditEntry = {
      ...entry,
      stream: AUDIT_STREAM,
      at: `${this.#now().toISOString()}#${randomBytes(4).toString("hex")}`,
      outcome: "recorded",
    };
    await this.#dynamo.send(
      new PutCommand({
        TableName: this.#table,
        Item: item,
        ConditionExpression: "attribute_not_exists(#at)",
        ExpressionAttributeNames: { "#at": "at" },
      }),
    );
    return item;
  }

  async settle(entry: AuditEntry, outcome: "applied" | "failed", detail?: string): Promise<void> {
    await this.#dynamo.send(
      new UpdateCommand({
        TableName: this.#table,
        Key: { stream: entry.stream, at: entry.at },
        UpdateExpression: `SET outcome = :o${detail ? ", detail = :d" : ""}`,
        ExpressionAttributeValues: { ":o": outcome, ...(detail ? { ":d": detail.slice(0, 2000) } : {}) },
      }),
    );
  }

  /** Newest first. */
  async list(req: PageRequest): Promise<Page<AuditEntry>> {
    const start = decodeCursor(req.cursor, ["stream", "at"], { stream: AUDIT_STREAM });
    const { items, last } = await queryPage(
      this.#dynamo,
      {
        TableName: this.#table,
        KeyConditionExpression: "#s = :s",
        ExpressionAttributeNames: { "#s": "stream" },
        ExpressionAttributeValues: { ":s": AUDIT_STREAM },
        ScanIndexForward: false,
      },
      { limit: clampLimit(req.limit), start, keys: ["stream", "at"] },
    );
    return { items: items as unknown as AuditEntry[], next: last ? encodeCursor(last) : null };
  }
}
