import { type DynamoDBDocumentClient, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import { STATE_KEYS } from "../config/index.ts";
import { capDetail, type FailureEntry, type FailureReader, type FailureReport } from "../ports/index.ts";
import { queryAll } from "./dynamo-util.ts";

/** Kept as long as refused mail is (the console lists 90 days of both). */
export const FAILURE_TTL_SECONDS = 90 * 24 * 3600;

/** Feed items: pk `failures#<UTC day>`, sk `<ISO time>#<class>#<run or request id>` in the `state` table. */
export const failureDayPk = STATE_KEYS.failures;

/**
 * Every failure of every class in one place, per UTC day (a day partition, read by one Query: no index, no scan),
 * including failures that belong to no run (a refusal notice from verify). Written once per report.
 */
export class FailureLog implements FailureReader {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(deps: { readonly dynamo: DynamoDBDocumentClient; readonly tables: Resources["tables"] }) {
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.state;
  }

  async record(f: FailureReport, at: Date): Promise<void> {
    const iso = at.toISOString();
    const detail = capDetail(f.detail);
    const entry: FailureEntry = {
      at: iso,
      class: f.class,
      reason: f.reason,
      agent: f.agent,
      ...(detail === undefined ? {} : { detail }),
      ...(f.runId === undefined ? {} : { runId: f.runId }),
      ...(f.requestId === undefined ? {} : { requestId: f.requestId }),
      ...(f.correlationId === undefined ? {} : { correlationId: f.correlationId }),
      ...(f.senderNotice === undefined ? {} : { senderNotice: f.senderNotice }),
    };
    await this.#dynamo.send(
      new PutCommand({
        TableName: this.#table,
        Item: {
          ...entry,
          pk: failureDayPk(iso.slice(0, 10)),
          sk: `${iso}#${f.class}#${f.runId ?? f.requestId ?? ""}`,
          expiresAt: Math.floor(at.getTime() / 1000) + FAILURE_TTL_SECONDS,
        },
      }),
    );
  }

  /** Newest first, over the last `days` UTC days up to `now`, at most `limit`: one Query per day read. */
  async listRecent(opts: {
    readonly now: Date;
    readonly days?: number;
    readonly limit?: number;
  }): Promise<FailureEntry[]> {
    const limit = opts.limit ?? 50;
    const out: FailureEntry[] = [];
    for (let i = 0; i < (opts.days ?? 7) && out.length < limit; i++) {
      const day = new Date(opts.now.getTime() - i * 86_400_000).toISOString().slice(0, 10);
      const items = await queryAll(
        this.#dynamo,
        {
          TableName: this.#table,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": failureDayPk(day) },
          ScanIndexForward: false,
        },
        limit - out.length,
      );
      for (const item of items) {
        const { pk: _pk, sk: _sk, expiresAt: _e, ...entry } = item;
        out.push(entry as unknown as FailureEntry);
      }
    }
    return out;
  }
}
